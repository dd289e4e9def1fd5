/* Small helpers shared by the test programs (each test file is its own
 * executable, so these are static inline). Include after criterion.h. */
#ifndef FD_TESTS_SUPPORT_H
#define FD_TESTS_SUPPORT_H

#include <criterion/criterion.h>

#include "fricdem/fricdem.h"

/* Index of a contact output column; fails the test if the world has none. */
static inline int test_column(const fd_world* world, const char* name)
{
    int column = fd_world_find_contact_column(world, name);
    cr_assert(column >= 0, "no contact column '%s'", name);
    return column;
}

/* Value of a contact output column in a contact view. */
static inline double test_column_value(const fd_world* world, const fd_contact_view* view, const char* name)
{
    return view->columns[test_column(world, name)];
}

/* A static plane z = 0 with outward normal +z, of the given material. */
static inline fd_body_id test_add_ground(fd_world* world, fd_material_id material)
{
    fd_body_def ground = fd_default_body_def();
    ground.name = "ground";
    ground.type = FD_BODY_STATIC;
    ground.shape.type = FD_SHAPE_PLANE;
    ground.material = material;
    fd_body_id id = fd_world_create_body(world, &ground);
    cr_assert(!fd_body_id_is_null(id), "%s", fd_last_error());
    return id;
}

#endif
