/* The one source of libfricdem.so of its own (the rest is libfricdem.a,
 * linked whole): what the Python package (python/fricdem/_library.py) checks
 * when it loads the library. Its declarations come from the public headers,
 * so the sizes of the public structs as this library was compiled must equal
 * the sizes cffi computes from those headers: a stale build, or a header
 * construct cffi reads differently, is named at import instead of being
 * misread through a changed layout. */
#include <string.h>

#include "fricdem/io.h"

const char* fd_library_version(void);
long fd_library_struct_size(const char* name);

const char* fd_library_version(void)
{
    return FRICDEM_VERSION_STRING;
}

/* sizeof the public struct `name`, or -1 for a name not in the list. */
long fd_library_struct_size(const char* name)
{
    static const struct {
        const char* name;
        size_t size;
    } sizes[] = {
        {"fd_world_energy", sizeof(fd_world_energy)},
        {"fd_world_profile", sizeof(fd_world_profile)},
        {"fd_world_memory", sizeof(fd_world_memory)},
        {"fd_solver_stats", sizeof(fd_solver_stats)},
        {"fd_param_info", sizeof(fd_param_info)},
        {"fd_model_info", sizeof(fd_model_info)},
        {"fd_output_settings", sizeof(fd_output_settings)},
        {"fd_output_cost", sizeof(fd_output_cost)},
        {"fd_scene", sizeof(fd_scene)},
        {"fd_vec3", sizeof(fd_vec3)},
        {"fd_quat", sizeof(fd_quat)},
        {"fd_body_id", sizeof(fd_body_id)},
        {"fd_material_id", sizeof(fd_material_id)},
        {"fd_complementarity_def", sizeof(fd_complementarity_def)},
        {"fd_world_def", sizeof(fd_world_def)},
        {"fd_lammps_import_def", sizeof(fd_lammps_import_def)},
        {"fd_material_def", sizeof(fd_material_def)},
        {"fd_param", sizeof(fd_param)},
        {"fd_submodel_def", sizeof(fd_submodel_def)},
        {"fd_contact_law_def", sizeof(fd_contact_law_def)},
        {"fd_shape_def", sizeof(fd_shape_def)},
        {"fd_body_def", sizeof(fd_body_def)},
        {"fd_body_state", sizeof(fd_body_state)},
        {"fd_body_info", sizeof(fd_body_info)},
        {"fd_wall_motion", sizeof(fd_wall_motion)},
        {"fd_wall_reaction", sizeof(fd_wall_reaction)},
        {"fd_inlet_def", sizeof(fd_inlet_def)},
        {"fd_inlet_info", sizeof(fd_inlet_info)},
        {"fd_outlet_def", sizeof(fd_outlet_def)},
        {"fd_outlet_info", sizeof(fd_outlet_info)},
        {"fd_contact_geometry", sizeof(fd_contact_geometry)},
        {"fd_contact_loads", sizeof(fd_contact_loads)},
        {"fd_energy_books", sizeof(fd_energy_books)},
        {"fd_contact_event", sizeof(fd_contact_event)},
        {"fd_contact_view", sizeof(fd_contact_view)},
    };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        if (strcmp(sizes[k].name, name) == 0) {
            return (long)sizes[k].size;
        }
    }
    return -1;
}

