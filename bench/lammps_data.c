/* Writes the spheres of a fricdem scene as a LAMMPS data file, so that LAMMPS
 * (or LIGGGHTS) starts from exactly the state fricdem has.
 *
 *   fricdem_lammps_data SCENE STEPS OUT.data [KEY=VALUE ...]
 *
 * Loads SCENE with the overrides (the --set syntax of the CLI), runs STEPS
 * steps (0: the initial state, e.g. a generator's lattice), and writes every
 * dynamic sphere as one atom of type 1 and every static sphere as one of
 * type 2 (frozen: `fix freeze` on them in LAMMPS) of `atom_style sphere`
 * (LAMMPS; LIGGGHTS's `atom_style granular` reads the same lines):
 *
 *   Atoms # sphere        id type diameter density x y z
 *   Velocities            id vx vy vz wx wy wz
 *
 * Atom ids are 1, 2, ... over the spheres in fricdem's body order;
 * the density is mass / (4/3 pi r^3), so LAMMPS's mass (4 pi/3 r^3 density)
 * equals fricdem's to round-off. The box is the spheres' extent, widened to
 * the static axis-aligned planes (a plane with normal +x at x = a sets xlo = a,
 * one with normal -x sets xhi), so that `fix wall/gran ... xplane $(xlo) $(xhi)`
 * puts LAMMPS's walls where fricdem's planes are; without a plane a side gets
 * the extent plus two radii of margin; along a periodic axis the box is the
 * world's periodic box. Prints one line to stdout:
 *   atoms N box XLO XHI YLO YHI ZLO ZHI planes x- x+ y- y+ z- z+  (1 = a plane bounds that side)
 * Used by scripts/lammps/run_lammps.py (case 3), bench/lammps_compare.sh and
 * bench/chute/chute_compare.sh. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/math.h"
#include "bench_scene.h"
#include "fricdem/io.h"

/* The rows of the Atoms section (id type diameter density x y z) or, with
 * velocities, of the Velocities section (id vx vy vz wx wy wz): one per
 * sphere, numbered from 1 in body order. A static sphere (type 2) has no
 * mass of its own: it gets static_density, that of a dynamic one. */
static void write_sphere_rows(FILE* out, fd_world* world, bool velocities, double static_density)
{
    const double pi = 3.14159265358979323846;
    int atom = 0;
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        fd_body_id id = fd_world_body_at(world, b);
        fd_body_info info = fd_body_get_info(world, id);
        if (info.shape.type != FD_SHAPE_SPHERE) {
            continue;
        }
        fd_body_state s = fd_body_get_state(world, id);
        if (velocities) {
            fprintf(out, "%d %.17g %.17g %.17g %.17g %.17g %.17g\n", ++atom, s.velocity.x, s.velocity.y, s.velocity.z,
                    s.angular_velocity.x, s.angular_velocity.y, s.angular_velocity.z);
            continue;
        }
        double r = info.shape.radius;
        double density = info.type == FD_BODY_STATIC ? static_density : info.mass / (4.0 / 3.0 * pi * r * r * r);
        fprintf(out, "%d %d %.17g %.17g %.17g %.17g %.17g\n", ++atom, info.type == FD_BODY_STATIC ? 2 : 1, 2.0 * r,
                density, s.position.x, s.position.y, s.position.z);
    }
}

int main(int argc, char** argv)
{
    fd_scene scene;
    fd_world* world = bench_load_scene(argc, argv, "SCENE STEPS OUT.data", &scene);
    if (world == NULL) {
        return 2;
    }
    int steps = atoi(argv[2]);
    fd_status status = fd_world_prepare(world);
    for (int s = 0; s < steps && status == FD_OK; ++s) {
        status = fd_world_step(world);
    }
    if (status != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        fd_scene_free(&scene);
        return 1;
    }
    const double pi = 3.14159265358979323846;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double plane_lo[3] = {NAN, NAN, NAN}, plane_hi[3] = {NAN, NAN, NAN};
    double largest = 0.0;
    int count = 0, frozen = 0;
    double static_density = NAN; /* kg/m^3: that of the first dynamic sphere */
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        fd_body_id id = fd_world_body_at(world, b);
        fd_body_info info = fd_body_get_info(world, id);
        fd_body_state state = fd_body_get_state(world, id);
        if (info.type == FD_BODY_STATIC && info.shape.type == FD_SHAPE_PLANE) {
            fd_vec3 n = fd_quat_rotate(state.orientation, info.shape.plane_normal); /* world normal */
            double p[3] = {state.position.x, state.position.y, state.position.z};
            double c[3] = {n.x, n.y, n.z};
            for (int k = 0; k < 3; ++k) {
                if (fabs(c[k]) == 1.0 && c[(k + 1) % 3] == 0.0 && c[(k + 2) % 3] == 0.0) {
                    if (c[k] > 0.0) {
                        plane_lo[k] = p[k];
                    } else {
                        plane_hi[k] = p[k];
                    }
                }
            }
            continue;
        }
        if (info.shape.type != FD_SHAPE_SPHERE) {
            continue;
        }
        frozen += info.type == FD_BODY_STATIC;
        double r = info.shape.radius;
        double p[3] = {state.position.x, state.position.y, state.position.z};
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], p[k] - r);
            hi[k] = fmax(hi[k], p[k] + r);
        }
        largest = fmax(largest, r);
        if (info.type == FD_BODY_DYNAMIC && isnan(static_density)) {
            static_density = info.mass / (4.0 / 3.0 * pi * r * r * r);
        }
        ++count;
    }
    if (count == frozen) {
        fprintf(stderr, "error: %s has no dynamic spheres\n", argv[1]);
        fd_scene_free(&scene);
        return 1;
    }
    fd_world_def def = fd_world_get_def(world);
    double box_lo[3] = {def.box_min.x, def.box_min.y, def.box_min.z};
    double box_hi[3] = {def.box_max.x, def.box_max.y, def.box_max.z};
    for (int k = 0; k < 3; ++k) {
        lo[k] = def.periodic[k] ? box_lo[k] : isnan(plane_lo[k]) ? lo[k] - 2.0 * largest : plane_lo[k];
        hi[k] = def.periodic[k] ? box_hi[k] : isnan(plane_hi[k]) ? hi[k] + 2.0 * largest : plane_hi[k];
    }
    FILE* out = fopen(argv[3], "w");
    if (out == NULL) {
        perror(argv[3]);
        fd_scene_free(&scene);
        return 1;
    }
    fprintf(out, "LAMMPS data file: %d spheres of fricdem scene %s after %d steps (t = %.17g s)\n\n", count,
            argv[1], steps, fd_world_time(world));
    fprintf(out, "%d atoms\n%d atom types\n\n", count, frozen > 0 ? 2 : 1);
    fprintf(out, "%.17g %.17g xlo xhi\n%.17g %.17g ylo yhi\n%.17g %.17g zlo zhi\n\n", lo[0], hi[0], lo[1], hi[1],
            lo[2], hi[2]);
    fprintf(out, "Atoms # sphere\n\n");
    write_sphere_rows(out, world, false, static_density);
    fprintf(out, "\nVelocities\n\n");
    write_sphere_rows(out, world, true, static_density);
    if (fclose(out) != 0) {
        perror(argv[3]);
        fd_scene_free(&scene);
        return 1;
    }
    printf("atoms %d box %.17g %.17g %.17g %.17g %.17g %.17g planes %d %d %d %d %d %d\n", count, lo[0], hi[0], lo[1],
           hi[1], lo[2], hi[2], !isnan(plane_lo[0]), !isnan(plane_hi[0]), !isnan(plane_lo[1]), !isnan(plane_hi[1]),
           !isnan(plane_lo[2]), !isnan(plane_hi[2]));
    fd_scene_free(&scene);
    return 0;
}
