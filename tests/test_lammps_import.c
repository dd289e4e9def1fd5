/* fricdem import-lammps (src/lammps/): what each command becomes, LAMMPS's
 * own behaviour where the manual leaves it open (checked with Debian's lmp
 * 29 Sep 2021, named in each test), and the errors: DECK:LINE and the
 * command, nothing written. The physics of imported decks against LAMMPS
 * itself: tests/test_lammps_golden.c (case 7). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/math.h"
#include "fricdem/io.h"
#include "support/temp_dir.h"

TestSuite(lammps_import, .init = make_dir, .fini = remove_dir);

/* The deck text written to temp_dir/deck.in and imported to temp_dir/scene.yaml. */
static fd_status import_text(const char* deck, int var_count, const char* const* names, const char* const* values)
{
    write_file(temp_path("deck.in"), deck);
    fd_lammps_import_def options = {.deck = temp_path("deck.in"), .scene = temp_path("scene.yaml"),
                                        .var_count = var_count, .var_names = names, .var_values = values};
    return fd_lammps_import(&options);
}

/* import_text of a deck without variables; fails the test if it is refused. */
static void import_ok(const char* deck)
{
    cr_assert_eq(import_text(deck, 0, NULL, NULL), FD_OK, "%s", fd_last_error());
}

/* A value written in the scene after `key: ` on the first line that holds `line_has`. */
static double scene_value(const char* line_has, const char* key)
{
    const char* text = read_text(temp_path("scene.yaml"));
    const char* line = strstr(text, line_has);
    cr_assert_not_null(line, "no line with '%s' in the scene:\n%s", line_has, text);
    const char* end = strchr(line, '\n');
    char pattern[64];
    snprintf(pattern, sizeof pattern, "%s: ", key);
    const char* at = strstr(line, pattern);
    cr_assert(at != NULL && (end == NULL || at < end), "no '%s' on the line with '%s'", key, line_has);
    return strtod(at + strlen(pattern), NULL);
}

static double mass_of(fd_world* world, const char* name)
{
    fd_body_id id = fd_world_find_body(world, name);
    cr_assert(fd_body_is_valid(world, id), "no body %s", name);
    return fd_body_get_info(world, id).mass;
}

static bool is_static(fd_world* world, const char* name)
{
    fd_body_id id = fd_world_find_body(world, name);
    cr_assert(fd_body_is_valid(world, id), "no body %s", name);
    return fd_body_get_info(world, id).type == FD_BODY_STATIC;
}

static fd_scene load_scene(void)
{
    fd_scene scene;
    cr_assert_eq(fd_scene_load(temp_path("scene.yaml"), NULL, 0, &scene), FD_OK, "%s", fd_last_error());
    return scene;
}

#define HEADER                                                                                                    \
    "units si\n"                                                                                                  \
    "atom_style sphere\n"                                                                                         \
    "region box block 0 0.1 0 0.1 0 0.1 units box\n"                                                              \
    "create_box 2 box\n"

#define ONE_LAW                                                                                                   \
    "pair_style granular\npair_coeff * * hooke 1e4 0.5 tangential linear_history 3e3 0.5 0.5 damping velocity\n"

Test(lammps_import, sphere_mass_as_lammps_sets_it)
{
    /* LAMMPS 2021: create_atoms gives diameter 1 and density 1; `set
     * diameter` keeps the mass; `set density` sets it from the diameter now. */
    import_ok(HEADER "create_atoms 1 single 0.05 0.05 0.05 units box\n"
                     "create_atoms 1 single 0.02 0.05 0.05 units box\n"
                     "create_atoms 2 single 0.08 0.05 0.05 units box\n"
                     "set atom 1 diameter 0.01\n"
                     "set atom 2 diameter 0.01 density 2500\n"
                     "set type 2 mass 0.25 diameter 0.02\n" ONE_LAW "fix 1 all nve/sphere\n");
    fd_scene scene = load_scene();
    fd_world* world = scene.world;
    double mass_default = 4.0 * FD_PI / 3.0 * 0.125; /* radius 0.5, density 1 */
    double radius_set = 0.005;
    cr_expect_eq(mass_of(world, "atom1"), mass_default);
    cr_expect_eq(mass_of(world, "atom2"), 4.0 * FD_PI / 3.0 * radius_set * radius_set * radius_set * 2500.0);
    cr_expect_eq(mass_of(world, "atom3"), 0.25);
    cr_expect_float_eq(scene_value("name: atom3", "radius"), 0.01, 1e-15);
    fd_scene_free(&scene);
}

Test(lammps_import, variables_substitute_as_lammps_formats_them)
{
    /* ${name} of an equal-style variable is %.15g, $(...) %.20g, and v_NAME
     * in a formula reads an equal-style variable back as %.15g text (lmp
     * 2021's print shows 0.078836534941341, 0.078836534941341004923 and
     * 7142.8571428571404 for the deck below);
     * --var defines an index variable the deck's own does not replace. */
    static const char* const names[] = {"kn"};
    static const char* const values[] = {"2.5e4"};
    cr_assert_eq(import_text("variable kn index 1e4\n"
                             "variable e equal 0.07883653494134105\n"
                             "variable kt equal 2.0/7.0*v_kn\n" HEADER
                             "create_atoms 1 single 0.05 0.05 0.05\n"
                             "pair_style granular\n"
                             "pair_coeff * * hooke ${kn} ${e} tangential linear_history $(v_kt:%.17g) $(v_e) 0.5 &\n"
                             "   damping velocity\n"
                             "fix 1 all nve/sphere\n",
                             1, names, values),
                 FD_OK, "%s", fd_last_error());
    const char* text = read_text(temp_path("scene.yaml"));
    cr_expect_not_null(strstr(text, "k_n: 25000,"), "--var kn 2.5e4 wins over the deck's index 1e4:\n%s", text);
    cr_expect_eq(scene_value("normal:", "eta_n"), strtod("0.078836534941341", NULL), "%%.15g of ${e}");
    /* $(v_e): v_NAME reads the variable back as %.15g text (the value above), shown with %.20g. */
    cr_expect_eq(scene_value("slide:", "x_gamma_t"), strtod("0.078836534941341004923", NULL));
    /* $(v_kt:%.17g) with kt = 2/7 v_kn: lmp prints 7142.8571428571404, the %.15g value, not 2/7 * 2.5e4. */
    cr_expect_eq(scene_value("slide:", "k_t"), strtod("7142.8571428571404", NULL));
}

Test(lammps_import, a_pair_without_pair_coeff_mixes_by_geometric_means)
{
    import_ok(HEADER "create_atoms 1 single 0.02 0.05 0.05\ncreate_atoms 2 single 0.08 0.05 0.05\n"
                     "pair_style granular\n"
                     "pair_coeff 1 1 hooke 2e4 0.003 tangential linear_history 1e3 0.5 0.4 rolling sds 1 2 "
                     "0.1 damping mass_velocity\n"
                     "pair_coeff 2 2 hooke 5e4 0.012 tangential linear_history 4e3 0.2 0.6 rolling sds 4 8 "
                     "0.4 damping mass_velocity\n"
                     "fix 1 all nve/sphere\n");
    const char* mixed = "materials: [type1, type2]";
    const char* text = read_text(temp_path("scene.yaml"));
    const char* entry = strstr(text, mixed);
    cr_assert_not_null(entry);
    char normal[512], slide[512], roll[512];
    cr_assert_eq(sscanf(strchr(entry, '\n') + 1, " %511[^\n] %511[^\n] %511[^\n]", normal, slide, roll), 3);
    char expected[128];
    snprintf(expected, sizeof expected, "k_n: %.17g, eta_n_mass: %.17g", sqrt(2e4 * 5e4), sqrt(0.003 * 0.012));
    cr_expect_not_null(strstr(normal, expected), "%s vs %s", normal, expected);
    snprintf(expected, sizeof expected, "k_t: %.17g, x_gamma_t: %.17g, mu: %.17g", sqrt(1e3 * 4e3), sqrt(0.5 * 0.2),
             sqrt(0.4 * 0.6));
    cr_expect_not_null(strstr(slide, expected), "%s vs %s", slide, expected);
    snprintf(expected, sizeof expected, "k_roll: %.17g, gamma_roll: %.17g, mu_roll: %.17g", sqrt(4.0), sqrt(16.0),
             sqrt(0.04));
    cr_expect_not_null(strstr(roll, expected), "%s vs %s", roll, expected);
}

Test(lammps_import, damping_keywords_become_the_normal_models_dashpots)
{
    /* Each LAMMPS damping model is its own fricdem parameter (docs/lammps.md's table). */
    static const char* const damping[] = {"velocity", "mass_velocity", "viscoelastic", "tsuji", "coeff_restitution"};
    static const char* const key[] = {"eta_n", "eta_n_mass", "eta_n_visco", "tsuji", "coeff_restitution"};
    for (int d = 0; d < 5; ++d) {
        char deck[1024];
        snprintf(deck, sizeof deck, HEADER "create_atoms 1 single 0.05 0.05 0.05\npair_style granular\n"
                 "pair_coeff * * hooke 1e4 0.5 tangential linear_history 3e3 0.5 0.5 damping %s\n"
                 "fix 1 all nve/sphere\n", damping[d]);
        import_ok(deck);
        cr_expect_eq(scene_value("normal:", key[d]), 0.5, "damping %s", damping[d]);
        cr_expect_eq(scene_value("normal:", "limit_damping"), 0.0, "no limit_damping in the deck");
        if (d == 3) { /* tsuji: LAMMPS 2021's alpha(e), written out so that a newer deck's user sees the switch */
            cr_expect_eq(scene_value("normal:", "tsuji_sqrt2"), 0.0);
        }
        fd_scene scene = load_scene(); /* the law resolves: fricdem takes every one without the clamp */
        cr_expect_eq(fd_world_prepare(scene.world), FD_OK, "damping %s: %s", damping[d], fd_last_error());
        fd_scene_free(&scene);
        remove(temp_path("scene.yaml"));
    }
}

Test(lammps_import, static_and_kinetic_tangential_models_of_lammps_2026)
{
    /* tangential linear_history/static k_t x_gammat mu_s mu_k and mindlin/static
     * (k_t or NULL): LAMMPS's manual; the dsds and mindlin sliders' mu_s, mu_k. */
    import_ok(HEADER "create_atoms 1 single 0.02 0.05 0.05\ncreate_atoms 2 single 0.08 0.05 0.05\n"
                     "pair_style granular\n"
                     "pair_coeff 1 1 hooke 1e4 0.5 tangential linear_history/static 3e3 0.5 0.6 0.4\n"
                     "pair_coeff 2 2 hooke 1e4 0.5 tangential linear_history/static 3e3 0.5 0.9 0.1\n"
                     "fix 1 all nve/sphere\n");
    cr_expect_eq(scene_value("slide:", "mu_s"), 0.6);
    cr_expect_eq(scene_value("slide:", "mu_k"), 0.4);
    const char* text = read_text(temp_path("scene.yaml"));
    const char* mixed = strstr(text, "materials: [type1, type2]");
    cr_assert_not_null(mixed);
    char expected[128];
    snprintf(expected, sizeof expected, "mu_s: %.17g, mu_k: %.17g", sqrt(0.6 * 0.9), sqrt(0.4 * 0.1));
    cr_expect_not_null(strstr(mixed, expected), "the mixed pair: %s", mixed);
    fd_scene scene = load_scene();
    cr_expect_eq(fd_world_prepare(scene.world), FD_OK, "%s", fd_last_error());
    fd_scene_free(&scene);
    remove(temp_path("scene.yaml"));
    import_ok(HEADER "create_atoms 1 single 0.02 0.05 0.05\npair_style granular\n"
                     "pair_coeff * * hertz/material 1e7 0.1 0.3 tangential mindlin/static NULL 0.5 0.7 "
                     "0.3\nfix 1 all nve/sphere\n");
    cr_expect_eq(scene_value("slide:", "mu_s"), 0.7);
    cr_expect_eq(scene_value("slide:", "mu_k"), 0.3);
}

Test(lammps_import, walls_gravity_frozen_atoms_and_periodic_axes)
{
    import_ok("units si\natom_style sphere\nboundary p f f\n"
              "region box block 0 0.1 0 0.1 0 0.1 units box\ncreate_box 2 box\n"
              "create_atoms 1 single 0.05 0.05 0.05\ncreate_atoms 2 single 0.05 0.05 0.01\n"
              "set type 1 diameter 0.01 density 2500\nset type 2 diameter 0.02 density 2500\n"
              "group base type 2\ngroup first id 1\ngroup moving subtract all base\n"
              "velocity first set 0.5 NULL NULL\n" ONE_LAW
              "fix w all wall/gran granular hooke 1e4 0.5 tangential linear_history 3e3 0.5 0.5 "
              "damping velocity yplane 0.0 0.1\n"
              "fix g all gravity 9.81 chute 26.0\nfix i moving nve/sphere\nfix f base freeze\n"
              "neigh_modify exclude type 2 2\ntimestep 1e-5\nrun 100\n");
    fd_scene scene = load_scene();
    fd_world* world = scene.world;
    fd_vec3 gravity = fd_world_get_def(world).gravity;
    /* fix gravity chute: (sin 26, 0, -cos 26) times 9.81 (fix_gravity.cpp, theta = 180 - 26 degrees). */
    cr_expect_float_eq(gravity.x, 9.81 * sin(26.0 * FD_PI / 180.0), 1e-12);
    cr_expect_float_eq(gravity.z, -9.81 * cos(26.0 * FD_PI / 180.0), 1e-12);
    cr_expect(is_static(world, "atom2"), "the frozen atom is static");
    cr_expect(!is_static(world, "atom1"), "the integrated atom moves");
    cr_expect_eq(fd_body_get_state(world, fd_world_find_body(world, "atom1")).velocity.x, 0.5, "group id 1");
    cr_expect_eq(fd_body_get_state(world, fd_world_find_body(world, "w_hi")).position.y, 0.1);
    cr_expect_float_eq(fd_world_time_step(world), 1e-5, 1e-20);
    const char* text = read_text(temp_path("scene.yaml"));
    cr_expect_not_null(strstr(text, "periodic: [x]"), "%s", text);
    cr_expect_not_null(strstr(text, "duration: 0.001"), "100 steps of 1e-5 s:\n%s", text);
    fd_scene_free(&scene);
}

Test(lammps_import, exclusions_between_moving_atoms_become_materials_that_never_touch)
{
    /* exclude type 1 2, and exclude group third third with group third
     * holding all of type 3: laws with normal model none for [type1, type2]
     * and [type3, type3]; the other pairs keep the deck's law. */
    import_ok("units si\natom_style sphere\nregion box block 0 0.1 0 0.1 0 0.1 units box\n"
              "create_box 3 box\ncreate_atoms 1 single 0.05 0.05 0.05\n"
              "create_atoms 2 single 0.05 0.05 0.06\ncreate_atoms 3 single 0.02 0.02 0.02\n"
              "create_atoms 3 single 0.02 0.02 0.03\ncreate_atoms 1 single 0.02 0.02 0.04\n"
              "set type 1 diameter 0.012\nset type 2 diameter 0.012\nset type 3 diameter 0.012\n"
              ONE_LAW
              "fix 1 all nve/sphere\ngroup third type 3\n"
              "neigh_modify exclude type 2 1 exclude group third third\nrun 10\n");
    const char* text = read_text(temp_path("scene.yaml"));
    cr_expect_not_null(strstr(text, "materials: [type1, type2]  # neigh_modify exclude\n    normal: {model: none}"),
                       "%s", text);
    cr_expect_not_null(strstr(text, "materials: [type3, type3]  # neigh_modify exclude\n    normal: {model: none}"),
                       "%s", text);
    cr_expect_not_null(strstr(text, "materials: [type1, type3]\n    normal: {model: hooke"), "%s", text);
    fd_scene scene = load_scene();
    /* Atoms 1 and 2 overlap (diameter 0.012 at 0.01 apart), and so do 3
     * and 4, and 4 and 5: only the last pair (types 3 and 1) is a contact. */
    cr_expect_eq(fd_world_step(scene.world), FD_OK, "%s", fd_last_error());
    cr_expect_eq(fd_world_contact_count(scene.world), 1);
    fd_scene_free(&scene);
}

/* ---------------------------------------------------------------- errors */

static void expect_failure(const char* deck, const char* message_has)
{
    fd_status status = import_text(deck, 0, NULL, NULL);
    cr_expect_neq(status, FD_OK, "the deck was accepted");
    cr_expect_not_null(strstr(fd_last_error(), message_has), "message '%s' lacks '%s'", fd_last_error(), message_has);
    cr_expect(!exists(temp_path("scene.yaml")), "nothing is written");
    cr_expect(!exists(temp_path("scene.yaml.partial")), "no partial file is left");
}

Test(lammps_import, an_unsupported_command_names_the_deck_line_and_command)
{
    expect_failure(HEADER "create_atoms 1 single 0.05 0.05 0.05\n" ONE_LAW "fix 1 all nve/sphere\n"
                          "fix 2 all langevin 1 1 1 48279\n",
                   "deck.in:9: fix: style 'langevin' is not supported");
    expect_failure(HEADER "kspace_style ewald 1e-4\n", "deck.in:5: kspace_style is not supported");
    expect_failure(HEADER "pair_style granular\npair_coeff * * jkr 1 2 3 4 tangential linear_history 1 1 1\n",
                   "deck.in:6: pair_coeff: 'jkr' is not supported");
    expect_failure("units real\n", "deck.in:1: units: units si and lj are supported");
    expect_failure(HEADER "pair_style granular\npair_coeff * * hertz 1e5 0.1 tangential mindlin NULL 0.5 0.5\n",
                   "deck.in:6: mindlin's NULL k_t takes G* from the moduli: it needs hertz/material");
}

Test(lammps_import, bad_values_and_undefined_variables_name_their_line)
{
    expect_failure(HEADER "create_atoms 1 single 0.05 zero 0.05\n", "deck.in:5: create_atoms: a coordinate 'zero'");
    expect_failure("variable a equal 2*v_b\nunits si\natom_style ${a}\n", "deck.in:3: variable 'a' = '2*v_b': "
                                                                            "variable 'b' is not defined");
    expect_failure("units ${nothing}\n", "deck.in:1: variable 'nothing' is not defined");
    expect_failure("variable x loop 10\n", "deck.in:1: variable style 'loop' is not supported");
}

Test(lammps_import, an_include_and_a_data_file_are_read_from_the_deck_directory)
{
    write_file(temp_path("box.lmp"), "region box block 0 1 0 1 0 1 units box\ncreate_box 1 box\nbogus_command 1\n");
    expect_failure("units si\natom_style sphere\ninclude box.lmp\n", "box.lmp:3: bogus_command is not supported");
    write_file(temp_path("atoms.data"), "title\n\n2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\n"
                                        "Atoms # sphere\n\n1 1 0.1 2500 0.5 0.5 0.5\n2 1 -0.1 2500 0.2 0.2 0.2\n");
    expect_failure("units si\natom_style sphere\nread_data atoms.data\n", "atoms.data:12: an atom needs");
}

Test(lammps_import, what_fricdem_cannot_move_as_lammps_does_is_refused)
{
    /* An atom neither integrated nor frozen stays put in LAMMPS but feels
     * forces and enters m_eff: no fricdem body does both. */
    expect_failure(HEADER "create_atoms 1 single 0.05 0.05 0.05\ncreate_atoms 2 single 0.02 0.02 0.02\n"
                          "group one type 1\n" ONE_LAW "fix 1 one nve/sphere\n",
                   "atom 2 is neither integrated (fix nve/sphere or nve) nor frozen");
    /* A type the box does not have. */
    expect_failure(HEADER "create_atoms 1 single 0.05 0.05 0.05\n" ONE_LAW
                          "fix 1 all nve/sphere\nneigh_modify exclude type 1 3\n",
                   "neigh_modify exclude type 1 3: the box has types 1 to 2");
    /* An exclusion by group that splits a type cannot be one by material. */
    expect_failure(HEADER "create_atoms 1 single 0.05 0.05 0.05\ncreate_atoms 1 single 0.02 0.02 0.02\n" ONE_LAW
                          "fix 1 all nve/sphere\ngroup first id 1\nneigh_modify exclude group first all\n",
                   "neigh_modify exclude group first all: a group holds only some atoms of type 1");
    /* An explicit hertz/material pair whose E* is not the one its two
     * materials give (fricdem takes E* from the materials). */
    expect_failure(HEADER "create_atoms 1 single 0.05 0.05 0.05\ncreate_atoms 2 single 0.02 0.02 0.02\n"
                          "pair_style granular\n"
                          "pair_coeff 1 1 hertz/material 1e7 0.1 0.3 tangential mindlin NULL 0.5 0.5\n"
                          "pair_coeff 2 2 hertz/material 4e7 0.1 0.3 tangential mindlin NULL 0.5 0.5\n"
                          "pair_coeff 1 2 hertz/material 3e7 0.1 0.3 tangential mindlin NULL 0.5 0.5\n"
                          "fix 1 all nve/sphere\n",
                   "atom types 1 2: LAMMPS's E* = ");
}

Test(lammps_import, an_existing_scene_is_kept_unless_overwrite)
{
    write_file(temp_path("scene.yaml"), "keep me\n");
    write_file(temp_path("deck.in"), HEADER "create_atoms 1 single 0.05 0.05 0.05\n" ONE_LAW "fix 1 all nve/sphere\n");
    fd_lammps_import_def options = {.deck = temp_path("deck.in"), .scene = temp_path("scene.yaml")};
    cr_expect_neq(fd_lammps_import(&options), FD_OK);
    cr_expect_not_null(strstr(fd_last_error(), "exists; it is kept"), "%s", fd_last_error());
    cr_expect_str_eq(read_text(temp_path("scene.yaml")), "keep me\n");
    options.overwrite = true;
    cr_expect_eq(fd_lammps_import(&options), FD_OK, "%s", fd_last_error());
    cr_expect_not_null(strstr(read_text(temp_path("scene.yaml")), "name: atom1"));
}
