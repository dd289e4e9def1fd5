/* The world's lifecycle and its step, above the steppers: create, prepare
 * and step (a stepper's step, then the outlets and the inlets), the bodies
 * that leave (outlets, fd_world_remove_body) and enter (inlets), which touch
 * the steppers' contacts and lists. The door of src/engine/; what these
 * files share beyond fricdem.h. Below it: the world's storage and the
 * services every stepper calls (src/world/), the steppers (src/penalty/,
 * src/complementarity/).
 *
 * Must not touch: files, ranks, the command line. */
#ifndef FD_ENGINE_H
#define FD_ENGINE_H

#include "world/world_store.h"

/* Inserts the spheres the inlets owe at the world's current time
 * (src/engine/inlet.c). Called by a stepper at the end of a successful step,
 * after the contact pass: the new spheres touch nothing, get gravity and their
 * external load as their force, and the world stays prepared. */
fd_status fd_world_run_inlets(fd_world* world);
/* The inlets' spheres due now, whoever runs them (fd_world_run_inlets does
 * unless world->inlets_by_caller: a rank of several inserts them once the
 * bodies the outlets take are removed on every rank, src/parallel). */
fd_status fd_world_insert_from_inlets(fd_world* world);
/* Frees the inlets (fd_world_free). */
void fd_world_free_inlets(fd_world* world);
/* Removes, after a successful step and before the inlets insert, the
 * dynamic bodies in the outlets' regions (src/engine/outlet.c). */
fd_status fd_world_run_outlets(fd_world* world);
/* The first open outlet whose region holds body b's centre, or -1 (for a
 * caller that runs the outlets itself: world->outlets_by_caller). */
int fd_world_outlet_of(const fd_world* world, int b);
/* Inlet i's region's box (m) and its largest sphere radius (m). */
void fd_world_inlet_bounds(const fd_world* world, int i, double lo[3], double hi[3], double* radius_max);
void fd_world_free_outlets(fd_world* world);
/* The name of the i-th inlet or outlet already added (one of a kind). */
typedef const char* (*fd_input_name)(const fd_world* world, int i);
/* The checks of an inlet or outlet (`kind`) being added, reported when it
 * fails one: a definition (def not NULL), a name not yet used by the
 * `count` of its kind already added (`name_of` reads theirs), and no step
 * taken yet (src/engine/outlet.c). */
fd_status fd_world_check_new_input(const fd_world* world, const char* kind, const void* def, const char* name,
                                   int count, fd_input_name name_of);
/* A zeroed item at index `count` of an inlet or outlet list (*items, each
 * `size` bytes, room for *capacity: grown by doubling from 4), and a heap
 * copy of its name for the item to own (*name_copy); NULL, reported, when
 * out of memory for either. The caller fills the item in and counts it. */
void* fd_world_new_input_item(void** items, int* capacity, int count, size_t size, const char* kind,
                              const char* name, char** name_copy);
/* Removes the bodies of these live slots (ascending, no repeats) without
 * the checks of fd_world_remove_body: the outlets, and a checkpoint's reader
 * putting the slots back. */
fd_status fd_world_remove_slots(fd_world* world, const int32_t* bodies, int count);
/* Room for one more contact law in world->laws (world_prepare.c); false when out of memory. */
bool fd_world_reserve_law(fd_world* world);
/* For fd_world_prepare: adds the spheres the inlets will bring to its
 * per-material tallies (bodies_of_material, dynamic_material,
 * smallest_radius) and to the lightest dynamic mass and largest radius. */
void fd_world_inlet_extents(const fd_world* world, int* bodies_of_material, bool* dynamic_material,
                            double* smallest_radius, double* lightest, double* largest_radius);

#endif
