/* LAMMPS granular models: parsing, mixing, and the fricdem law each one
 * becomes (granular.h; the mapping is docs/lammps.md's "Keywords" table).
 * Parsing follows LAMMPS 2021's pair_granular.cpp and the legacy
 * pair_gran_*.cpp; where fricdem has no exact equivalent the word is
 * refused with the reason, never approximated.
 *
 * Must not touch: the world's internals (it writes a scene). */
#include "lammps/granular.h"

#include <math.h>
#include <string.h>

#include "core/error.h"

static bool is_wall_style(const char* word)
{
    static const char* const styles[] = {"xplane", "yplane", "zplane", "zcylinder", "region"};
    for (size_t s = 0; s < sizeof styles / sizeof styles[0]; ++s) {
        if (strcmp(word, styles[s]) == 0) {
            return true;
        }
    }
    return false;
}

static fd_status numbers(const lmp_command* c, int* next, int count, const char* what, double* out)
{
    for (int k = 0; k < count; ++k) {
        char label[96];
        snprintf(label, sizeof label, "%s coefficient %d", what, k + 1);
        fd_status status = lmp_number(c, *next + k, label, &out[k]);
        if (status != FD_OK) {
            return status;
        }
    }
    *next += count;
    return FD_OK;
}

static fd_status refuse(const lmp_command* c, int word, const char* why)
{
    return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: %s: '%s' is not supported (%s)", c->file, c->line, c->words[0],
                   c->words[word], why);
}

static fd_status parse_tangential(const lmp_command* c, int* next, lmp_granular* g)
{
    static const struct {
        const char* name;
        lmp_tangential model;
        bool legacy, static_kinetic;
    } models[] = {
        {"linear_nohistory", LMP_TANGENTIAL_LINEAR_NOHISTORY, false, false},
        {"linear_history", LMP_TANGENTIAL_LINEAR_HISTORY, false, false},
        {"linear_history_classic", LMP_TANGENTIAL_LINEAR_HISTORY, true, false},
        {"linear_history/static", LMP_TANGENTIAL_LINEAR_HISTORY, false, true},
        {"mindlin", LMP_TANGENTIAL_MINDLIN, false, false},
        {"mindlin_classic", LMP_TANGENTIAL_MINDLIN, true, false},
        {"mindlin/static", LMP_TANGENTIAL_MINDLIN, false, true},
        {"mindlin_rescale", LMP_TANGENTIAL_MINDLIN_RESCALE, false, false},
        {"mindlin/force", LMP_TANGENTIAL_MINDLIN_FORCE, false, false},
        {"mindlin_rescale/force", LMP_TANGENTIAL_MINDLIN_RESCALE_FORCE, false, false},
    };
    int word = *next;
    if (word >= c->word_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: %s: tangential needs a model", c->file, c->line, c->words[0]);
    }
    for (size_t m = 0; m < sizeof models / sizeof models[0]; ++m) {
        if (strcmp(c->words[word], models[m].name) != 0) {
            continue;
        }
        g->tangential = models[m].model;
        g->legacy_projection = models[m].legacy;
        g->static_kinetic = models[m].static_kinetic;
        *next = word + 1;
        int frictions = g->static_kinetic ? 2 : 1; /* mu, or mu_s and mu_k */
        if (g->tangential == LMP_TANGENTIAL_LINEAR_NOHISTORY) {
            g->tangential_coeffs[0] = NAN;
            return numbers(c, next, 2, "tangential linear_nohistory", g->tangential_coeffs + 1);
        }
        bool mindlin = g->tangential != LMP_TANGENTIAL_LINEAR_HISTORY;
        if (mindlin && *next < c->word_count && strcmp(c->words[*next], "NULL") == 0) {
            g->tangential_coeffs[0] = NAN; /* 8 G* from the materials */
            *next += 1;
            return numbers(c, next, 1 + frictions, "tangential", g->tangential_coeffs + 1);
        }
        return numbers(c, next, 2 + frictions, "tangential", g->tangential_coeffs);
    }
    return refuse(c, word, "tangential models: linear_nohistory, linear_history, mindlin, mindlin_rescale, "
                           "mindlin/force, mindlin_rescale/force, their _classic forms, linear_history/static and "
                           "mindlin/static");
}

fd_status lmp_granular_parse(const lmp_command* c, int* next, bool wall, lmp_granular* g)
{
    *g = (lmp_granular){.damping = LMP_DAMPING_VISCOELASTIC, .tangential = (lmp_tangential)-1};
    int word = *next;
    if (word >= c->word_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: %s: a normal model (hooke, hertz, hertz/material) is missing",
                       c->file, c->line, c->words[0]);
    }
    const char* normal = c->words[word++];
    fd_status status;
    if (strcmp(normal, "hooke") == 0 || strcmp(normal, "hertz") == 0) {
        g->normal = normal[1] == 'o' ? LMP_NORMAL_HOOKE : LMP_NORMAL_HERTZ;
        status = numbers(c, &word, 2, normal, g->normal_coeffs);
    } else if (strcmp(normal, "hertz/material") == 0) {
        g->normal = LMP_NORMAL_HERTZ_MATERIAL;
        status = numbers(c, &word, 3, normal, g->normal_coeffs);
    } else {
        return refuse(c, word - 1,
                      "normal models: hooke, hertz, hertz/material; fricdem has no cohesive model (dmt, jkr)");
    }
    while (status == FD_OK && word < c->word_count && !(wall && is_wall_style(c->words[word]))) {
        const char* keyword = c->words[word++];
        if (strcmp(keyword, "damping") == 0) {
            static const char* const names[] = {"velocity", "mass_velocity", "viscoelastic", "tsuji",
                                                "coeff_restitution"};
            int found = -1;
            for (int d = 0; d < 5 && word < c->word_count; ++d) {
                found = strcmp(c->words[word], names[d]) == 0 ? d : found;
            }
            if (found < 0) {
                return word < c->word_count
                           ? refuse(c, word, "damping: velocity, mass_velocity, viscoelastic, tsuji, coeff_restitution")
                           : fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: damping needs a model", c->file, c->line);
            }
            g->damping = (lmp_damping)found;
            word++;
        } else if (strcmp(keyword, "tangential") == 0) {
            status = parse_tangential(c, &word, g);
        } else if (strcmp(keyword, "rolling") == 0) {
            if (word >= c->word_count || strcmp(c->words[word], "sds") != 0) {
                return word < c->word_count ? refuse(c, word, "rolling: sds")
                                            : fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: rolling needs a model",
                                                      c->file, c->line);
            }
            word++;
            g->rolling = true;
            status = numbers(c, &word, 3, "rolling sds", g->rolling_coeffs);
        } else if (strcmp(keyword, "twisting") == 0) {
            if (word < c->word_count && strcmp(c->words[word], "marshall") == 0) {
                g->twisting = LMP_TWIST_MARSHALL;
                word++;
            } else if (word < c->word_count && strcmp(c->words[word], "sds") == 0) {
                g->twisting = LMP_TWIST_SDS;
                word++;
                status = numbers(c, &word, 3, "twisting sds", g->twisting_coeffs);
            } else {
                return word < c->word_count ? refuse(c, word, "twisting: sds, marshall")
                                            : fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: twisting needs a model",
                                                      c->file, c->line);
            }
        } else if (strcmp(keyword, "limit_damping") == 0) {
            g->limit_damping = true;
        } else {
            return refuse(c, word - 1, "pair_coeff keywords: damping, tangential, rolling, twisting, limit_damping; "
                                       "fricdem has no heat model, and a contact is an overlap (no cutoff)");
        }
    }
    if (status == FD_OK && (int)g->tangential < 0) {
        status = fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: %s: the tangential model is missing (LAMMPS requires one)",
                         c->file, c->line, c->words[0]);
    }
    if (status == FD_OK && g->tangential >= LMP_TANGENTIAL_MINDLIN && isnan(g->tangential_coeffs[0]) &&
        g->normal != LMP_NORMAL_HERTZ_MATERIAL) {
        status = fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: mindlin's NULL k_t takes G* from the moduli: it needs "
                         "hertz/material (LAMMPS refuses it too)", c->file, c->line);
    }
    if (status == FD_OK && g->twisting == LMP_TWIST_MARSHALL && g->tangential != LMP_TANGENTIAL_LINEAR_HISTORY) {
        status = fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: twisting marshall needs tangential linear_history in fricdem "
                         "(docs/lammps.md)", c->file, c->line);
    }
    *next = word;
    return status;
}

fd_status lmp_granular_parse_legacy(const lmp_command* c, const char* style, int* next, lmp_granular* g)
{
    *g = (lmp_granular){.normal = LMP_NORMAL_HOOKE, .damping = LMP_DAMPING_MASS_VELOCITY, .legacy_projection = true};
    double k_n, k_t, gamma_n, gamma_t, mu, dampflag;
    int word = *next;
    fd_status status = lmp_number(c, word, "kn", &k_n);
    bool k_t_null = word + 1 < c->word_count && strcmp(c->words[word + 1], "NULL") == 0;
    bool gamma_t_null = word + 3 < c->word_count && strcmp(c->words[word + 3], "NULL") == 0;
    k_t = 2.0 / 7.0 * k_n; /* LAMMPS's default for NULL */
    if (status == FD_OK && !k_t_null) {
        status = lmp_number(c, word + 1, "kt", &k_t);
    }
    if (status == FD_OK) {
        status = lmp_number(c, word + 2, "gamma_n", &gamma_n);
    }
    if (status == FD_OK) {
        gamma_t = 0.5 * gamma_n; /* LAMMPS's default for NULL */
        if (!gamma_t_null) {
            status = lmp_number(c, word + 3, "gamma_t", &gamma_t);
        }
    }
    if (status == FD_OK) {
        status = lmp_number(c, word + 4, "xmu", &mu);
    }
    if (status == FD_OK) {
        status = lmp_number(c, word + 5, "dampflag", &dampflag);
    }
    if (status != FD_OK) {
        return status;
    }
    word += 6;
    if (word < c->word_count && strcmp(c->words[word], "limit_damping") == 0) {
        g->limit_damping = true;
        word++;
    }
    *next = word;
    if (dampflag == 0.0) {
        gamma_t = 0.0;
    }
    if (gamma_t > 0.0 && !(gamma_n > 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: gran/%s with gamma_t > 0 and gamma_n = 0: fricdem takes the "
                       "tangential dashpot as x_gamma_t = gamma_t / gamma_n", c->file, c->line, style);
    }
    double x_gammat = gamma_t > 0.0 ? gamma_t / gamma_n : 0.0;
    g->normal_coeffs[0] = k_n;
    g->normal_coeffs[1] = gamma_n;
    g->tangential_coeffs[0] = k_t;
    g->tangential_coeffs[1] = x_gammat;
    g->tangential_coeffs[2] = mu;
    if (strcmp(style, "hooke") == 0) {
        g->tangential = LMP_TANGENTIAL_LINEAR_NOHISTORY;
        g->tangential_coeffs[0] = NAN;
    } else if (strcmp(style, "hooke/history") == 0) {
        g->tangential = LMP_TANGENTIAL_LINEAR_HISTORY;
    } else {
        /* gran/hertz/history: both forces times a = sqrt(R_eff delta). */
        g->normal = LMP_NORMAL_HERTZ;
        g->damping = LMP_DAMPING_VISCOELASTIC;
        g->tangential = LMP_TANGENTIAL_MINDLIN;
    }
    return FD_OK;
}

static double mix_geometric(double a, double b) { return sqrt(a * b); }

fd_status lmp_granular_mix(const lmp_granular* a, const lmp_granular* b, int type_a, int type_b, lmp_granular* out)
{
    if (a->normal != b->normal || a->damping != b->damping || a->tangential != b->tangential ||
        a->rolling != b->rolling || a->twisting != b->twisting || a->limit_damping != b->limit_damping ||
        a->legacy_projection != b->legacy_projection || a->static_kinetic != b->static_kinetic) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "atom types %d and %d have granular models of different forms, which "
                       "LAMMPS cannot mix either: give pair_coeff %d %d its own model", type_a, type_b, type_a, type_b);
    }
    *out = *a;
    out->tangential_coeffs[3] = mix_geometric(a->tangential_coeffs[3], b->tangential_coeffs[3]);
    for (int k = 0; k < 3; ++k) {
        out->normal_coeffs[k] = mix_geometric(a->normal_coeffs[k], b->normal_coeffs[k]);
        out->tangential_coeffs[k] = mix_geometric(a->tangential_coeffs[k], b->tangential_coeffs[k]);
        out->rolling_coeffs[k] = mix_geometric(a->rolling_coeffs[k], b->rolling_coeffs[k]);
        out->twisting_coeffs[k] = mix_geometric(a->twisting_coeffs[k], b->twisting_coeffs[k]);
    }
    /* mindlin's NULL stays NULL (LAMMPS mixes G* from the materials, as fricdem does). */
    if (isnan(a->tangential_coeffs[0]) || isnan(b->tangential_coeffs[0])) {
        out->tangential_coeffs[0] = NAN;
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- writing */

static void write_normal(FILE* out, const lmp_granular* g)
{
    static const char* const damping_keys[] = {"eta_n", "eta_n_mass", "eta_n_visco", "tsuji", "coeff_restitution"};
    double damping = g->normal_coeffs[1];
    /* No dashpot: the clamp changes nothing, and fricdem's limit_damping = 0 wants one. */
    bool limit = g->limit_damping || !(damping > 0.0);
    fprintf(out, "normal: {model: %s", g->normal == LMP_NORMAL_HOOKE ? "hooke" : "hertz");
    if (g->normal == LMP_NORMAL_HOOKE) {
        fprintf(out, ", k_n: %.17g", g->normal_coeffs[0]);
    }
    if (damping > 0.0) {
        fprintf(out, ", %s: %.17g", damping_keys[g->damping], damping);
    }
    if (damping > 0.0 && g->damping == LMP_DAMPING_TSUJI) {
        /* LAMMPS 29 Sep 2021's alpha(e); newer LAMMPS's sqrt(2) alpha(e) is tsuji_sqrt2: 1 (the import's note). */
        fprintf(out, ", tsuji_sqrt2: 0");
    }
    fprintf(out, ", limit_damping: %d}", limit ? 1 : 0);
}

static void write_slide(FILE* out, const lmp_granular* g)
{
    static const char* const names[] = {"linear_nohistory", "dsds", "mindlin", "mindlin_rescale", "mindlin_force",
                                        "mindlin_rescale_force"};
    const double* t = g->tangential_coeffs;
    fprintf(out, "slide: {model: %s", names[g->tangential]);
    if (g->tangential == LMP_TANGENTIAL_LINEAR_NOHISTORY) {
        fprintf(out, ", x_gamma_t: %.17g, mu: %.17g}", t[1], t[2]);
        return;
    }
    if (!isnan(t[0])) {
        fprintf(out, ", k_t: %.17g", t[0]);
    }
    if (g->static_kinetic) {
        fprintf(out, ", x_gamma_t: %.17g, mu_s: %.17g, mu_k: %.17g", t[1], t[2], t[3]);
    } else {
        fprintf(out, ", x_gamma_t: %.17g, %s: %.17g", t[1],
                g->tangential == LMP_TANGENTIAL_LINEAR_HISTORY ? "mu" : "mu_s", t[2]);
    }
    if (g->legacy_projection) {
        fprintf(out, ", legacy_projection: 1");
    }
    fprintf(out, "}");
}

void lmp_granular_write(FILE* out, const lmp_granular* g, const char* indent)
{
    fprintf(out, "%s", indent);
    write_normal(out, g);
    fprintf(out, "\n%s", indent);
    write_slide(out, g);
    fprintf(out, "\n");
    if (g->rolling) {
        /* transport 1: LAMMPS's projection of the rolling spring (docs/models/sds.md). */
        fprintf(out, "%sroll: {model: dsds, k_roll: %.17g, gamma_roll: %.17g, mu_roll: %.17g, transport: 1}\n", indent,
                g->rolling_coeffs[0], g->rolling_coeffs[1], g->rolling_coeffs[2]);
    }
    if (g->twisting == LMP_TWIST_SDS) {
        fprintf(out, "%sspin: {model: dsds, k_twist: %.17g, gamma_twist: %.17g, mu_twist: %.17g}\n", indent,
                g->twisting_coeffs[0], g->twisting_coeffs[1], g->twisting_coeffs[2]);
    } else if (g->twisting == LMP_TWIST_MARSHALL) {
        fprintf(out, "%sspin: {model: marshall}\n", indent);
    }
}
