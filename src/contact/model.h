/* Contact sub-models: the registry, the resolved contact law of a material
 * pair, and the stateless kernels. The door of src/contact/.
 *
 * A contact law is composed of one sub-model per mechanism (normal, slide,
 * roll, spin), as in LAMMPS GRANULAR. Each sub-model is a const table entry:
 * a name, a parameter table (which drives validation, `fricdem models` and the
 * docs), the size of its history block, its output columns, and a kind used
 * by a switch in the kernel (no function pointer per contact in the hot loop).
 *
 * History is one flat block of doubles per contact; each sub-model of a law
 * gets its offset in it when the law is resolved. A new contact starts with
 * its block zeroed (Fang & Negrut Sec. 3: no history at the onset of contact).
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#ifndef FD_CONTACT_MODEL_H
#define FD_CONTACT_MODEL_H

#include "fricdem/fricdem.h"
#include "contact/sds_core.h"
#include "core/math.h"

#define FD_MAX_DERIVED 8
#define FD_MAX_SUBMODEL_COLUMNS 24

typedef enum fd_submodel_kind {
    FD_KIND_NONE = 0,
    FD_KIND_NORMAL_PRESCRIBED,
    FD_KIND_NORMAL_HOOKE,
    FD_KIND_NORMAL_HERTZ,
    FD_KIND_SLIDE_FANG_NEGRUT,
    FD_KIND_ROLL_FANG_NEGRUT,
    FD_KIND_ROLL_LEGACY,
    FD_KIND_SPIN_FANG_NEGRUT,
    FD_KIND_SPIN_FANG_NEGRUT_HERTZ,
    FD_KIND_SLIDE_DSDS,
    FD_KIND_SLIDE_CSDS,
    FD_KIND_NORMAL_PFC_LINEAR,
    FD_KIND_SLIDE_PFC_LINEAR,
    FD_KIND_ROLL_PFC_RRLINEAR,
    FD_KIND_ROLL_DSDS,
    FD_KIND_ROLL_CSDS,
    FD_KIND_SPIN_DSDS,
    FD_KIND_SPIN_CSDS,
    FD_KIND_SPIN_MARSHALL,
    FD_KIND_NORMAL_RIGID,
    FD_KIND_SLIDE_CONE,
    FD_KIND_ROLL_CONE,
    FD_KIND_SPIN_CONE,
    FD_KIND_SLIDE_MINDLIN,               /* LAMMPS tangential mindlin */
    FD_KIND_SLIDE_MINDLIN_RESCALE,       /* mindlin_rescale */
    FD_KIND_SLIDE_MINDLIN_FORCE,         /* mindlin/force */
    FD_KIND_SLIDE_MINDLIN_RESCALE_FORCE, /* mindlin_rescale/force */
    FD_KIND_SLIDE_LINEAR_NOHISTORY,      /* LAMMPS tangential linear_nohistory: a capped dashpot */
    FD_KIND_NORMAL_NEVER,                /* normal "none": the materials never touch (LAMMPS neigh_modify exclude) */
} fd_submodel_kind;

/* The four mindlin slide models: which one rescales its history when the
 * contact shrinks, and which one keeps a force instead of a displacement. */
static inline bool fd_kind_is_mindlin(fd_submodel_kind kind)
{
    return kind >= FD_KIND_SLIDE_MINDLIN && kind <= FD_KIND_SLIDE_MINDLIN_RESCALE_FORCE;
}
static inline bool fd_mindlin_rescales(fd_submodel_kind kind)
{
    return kind == FD_KIND_SLIDE_MINDLIN_RESCALE || kind == FD_KIND_SLIDE_MINDLIN_RESCALE_FORCE;
}
static inline bool fd_mindlin_holds_force(fd_submodel_kind kind)
{
    return kind == FD_KIND_SLIDE_MINDLIN_FORCE || kind == FD_KIND_SLIDE_MINDLIN_RESCALE_FORCE;
}

/* Parameter order of the slide models dsds and csds (their table in sds.c);
 * the spin model marshall and the critical step read them. */
enum { FD_SDS_K_T = 0, FD_SDS_GAMMA_T = 1, FD_SDS_MU = 2, FD_SDS_X_GAMMA_T = 3, FD_SDS_LEGACY_PROJECTION = 4,
       FD_SDS_MU_S = 5, FD_SDS_MU_K = 6 };
/* Parameter order of the mindlin slide models (their table in mindlin.c),
 * and what they derive: k_t (Pa; 8 G* for the default -1) and mu_k (mu_s for
 * the default -1). The penalty stepper's sphere kernel and the critical step
 * read them. */
enum { FD_MINDLIN_K_T = 0, FD_MINDLIN_X_GAMMA_T = 1, FD_MINDLIN_MU_S = 2, FD_MINDLIN_MU_K = 3,
       FD_MINDLIN_LEGACY_PROJECTION = 4 };
enum { FD_MINDLIN_DERIVED_K_T = 0, FD_MINDLIN_DERIVED_MU_K = 1 };
/* Parameter order of the normal model hooke (its table in normal.c), and the
 * constants hooke and hertz derive (restitution-calibrated gamma, E*); the
 * penalty stepper's sphere kernels read them. */
enum { FD_HOOKE_STIFFNESS = 0, FD_HOOKE_RESTITUTION = 1, FD_HOOKE_ETA_N = 2, FD_HOOKE_ETA_N_MASS = 3,
       FD_HOOKE_LIMIT_DAMPING = 4, FD_HOOKE_ETA_N_VISCO = 5, FD_HOOKE_TSUJI = 6, FD_HOOKE_COEFF_RESTITUTION = 7,
       FD_HOOKE_TSUJI_SQRT2 = 8 };
/* hertz's parameters: the restitution (Tsuji's dashpot), or one of LAMMPS's
 * dashpots: eta_n (damping velocity), eta_n_mass (mass_velocity), eta_n_visco
 * (viscoelastic). */
enum { FD_HERTZ_RESTITUTION = 0, FD_HERTZ_ETA_N = 1, FD_HERTZ_ETA_N_MASS = 2, FD_HERTZ_ETA_N_VISCO = 3,
       FD_HERTZ_TSUJI = 4, FD_HERTZ_LIMIT_DAMPING = 5, FD_HERTZ_COEFF_RESTITUTION = 6,
       FD_HERTZ_TSUJI_SQRT2 = 7 };
enum { FD_NORMAL_DERIVED_GAMMA = 0, FD_NORMAL_DERIVED_MODULUS = 1 };
/* Hertz's K of F = K delta^(3/2), Johnson Eq. (4.23): K = 4/3 E* sqrt(R_eff),
 * from hertz's derived constants (N/m^(3/2)); normal.c's force and dashpot,
 * the sphere kernels' and the Fang & Negrut lanes' pair constants. */
static inline double fd_hertz_constant(const double* derived, double effective_radius)
{
    return 4.0 / 3.0 * derived[FD_NORMAL_DERIVED_MODULUS] * sqrt(effective_radius);
}
/* Hertz's effective modulus of two materials, Johnson, Contact Mechanics,
 * Eq. (4.22): 1/E* = (1 - nu_a^2)/E_a + (1 - nu_b^2)/E_b (LAMMPS's
 * mix_stiffnessE). */
static inline double fd_hertz_modulus(double youngs_a, double poisson_a, double youngs_b, double poisson_b)
{
    return 1.0 / ((1.0 - poisson_a * poisson_a) / youngs_a + (1.0 - poisson_b * poisson_b) / youngs_b);
}
/* What the slide and roll spring-dashpot-sliders derive: 1/k and 1/gamma
 * (0 without a dashpot), so that an update multiplies instead of divides. */
enum { FD_SDS_DERIVED_INVERSE_K = 0, FD_SDS_DERIVED_INVERSE_GAMMA = 1 };
/* What every slider with a Coulomb limit (slide, roll and spin dsds and
 * csds, PFC linear and rrlinear) derives from its one coefficient or its
 * static and kinetic pair (issue 18): the static and the kinetic
 * coefficient, in these slots of the mechanism's derived values. A sticking contact slips when its load exceeds
 * mu_s N and slides capped at mu_k N until the load falls to mu_k N or below
 * (LAMMPS linear_history/static, the switch of Fang & Negrut Sec. 3.1); the
 * mode is the one the step starts in, the contact's slip flag of the last
 * step. One `mu` is both. */
enum { FD_DERIVED_MU_S = 2, FD_DERIVED_MU_K = 3 };

/* The Coulomb coefficient a slider uses this step: kinetic when it slipped
 * at the last step, static otherwise. A blend (the block kernel vectorises
 * it); with mu_k = mu_s it is that one coefficient, bit for bit. */
static inline __attribute__((always_inline)) double fd_static_kinetic(bool was_slipping, double mu_s, double mu_k)
{
    return was_slipping ? mu_k : mu_s;
}

/* Resolves one slider's coefficients into its derived values
 * (FD_DERIVED_MU_S, FD_DERIVED_MU_K) from its parameters at the slots mu,
 * mu_s and mu_k (its table's order): `mu` alone (both), or `mu_s` with an
 * optional `mu_k` (default mu_s); -1 marks a coefficient not given. Fails,
 * naming the model and the keys, when neither or both forms are given, or
 * when mu_k > mu_s. */
fd_status fd_resolve_static_kinetic(const char* model, const char* mu_name, const double* params, int mu_slot,
                                    int mu_s_slot, int mu_k_slot, double* derived);

typedef struct fd_material {
    char* name;
    double density;
    double youngs_modulus;
    double poisson_ratio;
} fd_material;

struct fd_contact_law;

/* The number of rows of a static table (a model's parameters for its
 * fd_model_info, its output columns, a list of models): counted from the
 * table itself, so that a row added is never dropped. */
#define FD_COUNT_OF(table) ((int)(sizeof(table) / sizeof((table)[0])))

typedef struct fd_submodel {
    fd_model_info info;
    fd_submodel_kind kind;
    int history_size;                  /* doubles per contact */
    int column_count;                  /* output columns */
    const char* const* column_names;
    const char* const* column_units;
    /* Checks combinations the parameter table cannot express and derives
     * constants (e.g. E* of the material pair); params are in table order
     * with defaults filled. Returns FD_OK or fails with a message. */
    fd_status (*resolve)(const double* params, const fd_material* a, const fd_material* b, double* derived);
} fd_submodel;

/* One entry of a sub-model table, as the law files write them: what
 * `fricdem models` shows (name, mechanism, parameter table, doc; the
 * parameters counted from their table), then the rest as designated
 * initialisers: .kind, and what the model has of .history_size, .resolve and
 * output columns (FD_SUBMODEL_COLUMNS). A model without parameters is
 * written out (there is no table to count). */
#define FD_SUBMODEL(NAME, MECHANISM, PARAMS, DOC, ...)                                                             \
    { .info = {NAME, MECHANISM, DOC, PARAMS, FD_COUNT_OF(PARAMS)}, __VA_ARGS__ }
/* A sub-model's output columns, from its tables of names and units (one per
 * column, in the same order): counted from the names, so that a column added
 * is never left out; tables of two lengths do not compile (a char array of
 * size -1), so that a name is never left without its unit. */
#define FD_SUBMODEL_COLUMNS(NAMES, UNITS)                                                                          \
    .column_count = FD_COUNT_OF(NAMES) + 0 * (int)sizeof(char[FD_COUNT_OF(NAMES) == FD_COUNT_OF(UNITS) ? 1 : -1]), \
    .column_names = NAMES, .column_units = UNITS

int fd_submodel_count(void);
const fd_submodel* fd_submodel_at(int index);
const fd_submodel* fd_submodel_find(fd_mechanism mechanism, const char* name);

/* A resolved law for one material pair. */
typedef struct fd_contact_law {
    int material_a, material_b;
    const fd_submodel* submodel[FD_MECHANISM_COUNT]; /* NULL = mechanism absent */
    double params[FD_MECHANISM_COUNT][FD_MAX_SUBMODEL_PARAMS];
    double derived[FD_MECHANISM_COUNT][FD_MAX_DERIVED];
    int history_offset[FD_MECHANISM_COUNT];
    int history_size;
    int column_index[FD_MECHANISM_COUNT][FD_MAX_SUBMODEL_COLUMNS]; /* into the world's column table */
} fd_contact_law;

/* A law whose materials never touch (normal model "none"): the steppers
 * never pair their bodies, so no kernel ever sees it. */
static inline bool fd_law_never_touches(const fd_contact_law* law)
{
    return law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_NEVER;
}

/* Checks a def against the registry and fills a law (columns not yet mapped). */
fd_status fd_contact_law_resolve(fd_contact_law* law, const fd_contact_law_def* def, const fd_material* a,
                                 const fd_material* b, int material_a, int material_b);

/* What a kernel sees of one contact. */
typedef struct fd_contact_input {
    const fd_contact_geometry* geometry;
    const fd_body_state* state_i;
    const fd_body_state* state_j;
    double mass_i, mass_j;             /* kg; 0 for a static body */
    fd_vec3 inertia_i, inertia_j;      /* principal, body frame */
    double effective_mass;             /* m_i m_j / (m_i + m_j); the dynamic mass when the other is static */
    double penetration_rate;           /* d(penetration)/dt, m/s, from the relative velocity along the normal */
    fd_vec3 relative_velocity;         /* velocity of body i's surface minus body j's at the contact point, m/s */
    double time_step;                  /* s over which the loads act (the dashpots' and sliders' books) */
    double spring_time_step;           /* s over which the springs advance: time_step, or 0 in a set-up pass
                                        * (fd_world_prepare: no time has passed; fd_penalty.spring_time_step) */
    bool is_new;                       /* first step of this contact */
    /* Each body's rotation over the step, R(q(t1)) R(q(t0))^T, world frame:
     * what carries a vector attached to the body at t0 to t1 (Fang & Negrut's
     * painted points and frame). NULL when no time has passed (a set-up pass)
     * or the caller does not track it (no law reads it). */
    const fd_mat3* turn_i;
    const fd_mat3* turn_j;
    fd_shape_type shape_i, shape_j;    /* for the geodesic arc length (Fang & Negrut Sec. 2.1, 4.5) */
    double radius_i, radius_j;         /* sphere radii, m (0 otherwise) */
    double youngs_modulus_i, youngs_modulus_j; /* Pa, for Hertz-based spin stiffness */
    double poisson_ratio_i, poisson_ratio_j;
    double* history;                   /* the contact's whole history block (normal models with state: pfc_linear) */
    /* This evaluation's energy books per mechanism, zeroed by the caller:
     * a kernel sets .stored (J in its springs after the update) and the
     * increments .dashpot, .slip, .created (>= 0 each) and .work over the
     * step that applies the loads it returns (docs/energy.md). */
    fd_energy_books* energy;
    /* True when nobody reads these books (no ledger, no recorded contact):
     * a kernel may then leave out the work of filling them, never anything
     * that changes a load (the penalty stepper's generic pair sets it). */
    bool books_unread;
    /* Slip state after this evaluation, bit (1 << mechanism) set while that
     * mechanism slips; zeroed by the caller, set by kernels with a stick/slip
     * state (the source of the slip events). */
    unsigned* slip_flags;
    /* The slip state the step starts in: bit (1 << mechanism) set when that
     * mechanism slipped at the last step (0 for a new contact); the sliders
     * with static and kinetic coefficients read it (fd_static_kinetic). */
    unsigned was_slipping;
} fd_contact_input;

typedef struct fd_normal_result {
    double force;                      /* N, >= 0 */
    double elastic_force;              /* N, spring part before the no-tension clamp */
    double damping_force;              /* N, dashpot part before the clamp */
    double elastic_energy;             /* J stored in the normal spring */
} fd_normal_result;

/* Normal force of a law at one contact (stateless kernel). */
fd_normal_result fd_normal_evaluate(const fd_contact_law* law, const fd_contact_input* input);

/* The normal dashpot coefficient of a law at one contact (N s/m): hooke's c
 * (0 without overlap), hertz's gamma sqrt(m K) delta^(1/4), 0 for the other
 * normal models; the one fd_normal_evaluate applies. The mindlin slide
 * models' dashpot is a fraction of it (LAMMPS damp_normal_prefactor). */
double fd_normal_damping_coefficient(const fd_contact_law* law, const fd_contact_input* input);

/* hooke's and hertz's dashpot, c = prefactor x overlap factor (N s/m), in
 * two parts so that the sphere kernels keep the first with the pair
 * (src/penalty/neighbor.c, pair constants) and form the second per contact.
 * The prefactor (normal.c) is gamma sqrt(m k) (hooke, gamma from the
 * restitution or Tsuji's alpha), gamma sqrt(m K) with K = 4/3 E* sqrt(R)
 * (hertz), or LAMMPS's eta_n, eta_n_mass m, eta_n_visco m; the factor is 1,
 * delta^(1/4) (hertz's Tsuji form) or a = sqrt(R delta) (viscoelastic). m the
 * pair's effective mass, R its effective radius. */
double fd_normal_dashpot_prefactor(const fd_contact_law* law, double effective_mass, double effective_radius);
static inline double fd_normal_dashpot_factor(const fd_contact_law* law, double effective_radius, double overlap)
{
    const double* p = law->params[FD_MECHANISM_NORMAL];
    if (law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ) {
        if (p[FD_HERTZ_ETA_N] > 0.0 || p[FD_HERTZ_ETA_N_MASS] > 0.0) {
            return 1.0;
        }
        return p[FD_HERTZ_ETA_N_VISCO] > 0.0 ? sqrt(effective_radius * overlap) : sqrt(sqrt(overlap));
    }
    if (p[FD_HOOKE_ETA_N_VISCO] > 0.0) {
        return isfinite(effective_radius) ? sqrt(effective_radius * overlap) : 0.0; /* a flat contact: no radius */
    }
    return 1.0;
}

/* Friction loads of a law at one contact (slide force, roll and spin torques
 * on both bodies), given the normal force just computed; updates the
 * contact's history block and writes the model's output columns. */
void fd_friction_evaluate(const fd_contact_law* law, const fd_contact_input* input, double normal_force,
                          double* history, double* columns, fd_contact_loads* loads);

/* Fang & Negrut slide with its roll and spin models, the legacy roll model,
 * and the check of their combination (src/contact/fang_negrut.c). */
void fd_fang_negrut_evaluate(const fd_contact_law* law, const fd_contact_input* input, double normal_force,
                             double* history, double* columns, fd_contact_loads* loads);
void fd_legacy_roll_evaluate(const fd_contact_law* law, const fd_contact_input* input, double normal_force,
                             double* columns, fd_contact_loads* loads);
fd_status fd_fang_negrut_check_law(const fd_contact_law* law);

/* D-SDS slide kernel (src/contact/sds.c): force on body i, given the relative
 * tangential velocity of body i's surface against body j's at the contact. */
fd_vec3 fd_dsds_slide(const fd_contact_law* law, const fd_contact_input* input, fd_vec3 tangential_velocity,
                      double normal_force, double* history, double* columns);

/* C-SDS slide kernel (src/contact/sds.c, C-SDS paper Eq. 10): same arguments
 * and history/columns layout as fd_dsds_slide. */
fd_vec3 fd_csds_slide(const fd_contact_law* law, const fd_contact_input* input, fd_vec3 tangential_velocity,
                      double normal_force, double* history, double* columns);

/* The slip flag and energy books of a slide step of sds_core.h (dsds, csds,
 * mindlin): the spring's energy after the step, the step's dashpot and slip
 * dissipation and the reset's creation. Inline: it runs once per contact. */
static inline void fd_sds_report_slide(const fd_contact_input* input, const fd_sds_vector_step* step)
{
    if (step->slipping && input->slip_flags != NULL) {
        *input->slip_flags |= 1u << FD_MECHANISM_SLIDE;
    }
    if (input->energy != NULL) {
        fd_energy_books* books = &input->energy[FD_MECHANISM_SLIDE];
        books->stored = step->stored;
        books->dashpot = step->dashpot;
        books->slip = step->slip;
        books->created = step->created;
    }
}

/* linear_nohistory slide kernel (src/contact/sds.c, fd_nohistory_slide_force). */
fd_vec3 fd_nohistory_slide(const fd_contact_law* law, const fd_contact_input* input, fd_vec3 tangential_velocity,
                           double normal_force, double* columns);

/* LAMMPS `tangential linear_nohistory x_gt mu` (and the legacy gran/hooke's
 * tangential force): F = -gamma v capped at mu N along -v, no spring, no
 * history; gamma = gamma_t, or x_gamma_t times the pair's normal dashpot
 * (parameters FD_NOHISTORY_*). A capped force dissipates as slip, an uncapped
 * one as dashpot. */
enum { FD_NOHISTORY_GAMMA_T = 0, FD_NOHISTORY_MU = 1, FD_NOHISTORY_X_GAMMA_T = 2 };
static inline fd_vec3 fd_nohistory_slide_force(double gamma, double limit, double dt, fd_vec3 v, bool* slipping,
                                               fd_energy_books* books)
{
    fd_vec3 test = fd_v3_scale(-gamma, v);
    double test_squared = fd_v3_dot(test, test);
    *slipping = test_squared > limit * limit;
    fd_vec3 force = *slipping ? fd_v3_scale(limit / sqrt(test_squared), test) : test;
    double dissipated = -fd_v3_dot(force, v) * dt;
    if (books != NULL) {
        books->stored = 0.0;
        books->dashpot = *slipping ? 0.0 : dissipated;
        books->slip = *slipping ? dissipated : 0.0;
    }
    return force;
}

/* The tangential dashpot of dsds, csds and linear_nohistory at a contact
 * (N s/m): gamma_t, or x_gamma_t (>= 0; -1 = off) times the pair's normal
 * dashpot coefficient c_n (LAMMPS's xgammat, which scales with m_eff under
 * damping mass_velocity or tsuji). */
static inline double fd_tangential_dashpot(double gamma_t, double x_gamma_t, double normal_dashpot)
{
    return x_gamma_t >= 0.0 ? x_gamma_t * normal_dashpot : gamma_t;
}

/* dsds's and csds's, with *inverse = 1 / gamma (0 for no dashpot): the
 * law's derived one for a constant gamma_t. */
static inline double fd_sds_tangential_dashpot(const double* params, const double* derived, double normal_dashpot,
                                               double* inverse)
{
    double gamma = fd_tangential_dashpot(params[FD_SDS_GAMMA_T], params[FD_SDS_X_GAMMA_T], normal_dashpot);
    *inverse =
        params[FD_SDS_X_GAMMA_T] < 0.0 ? derived[FD_SDS_DERIVED_INVERSE_GAMMA] : (gamma > 0.0 ? 1.0 / gamma : 0.0);
    return gamma;
}

/* Mindlin tangential spring (src/contact/mindlin.c; LAMMPS tangential
 * mindlin, mindlin_rescale, mindlin/force, mindlin_rescale/force): force on
 * body i; updates the slide history block and the columns; and the check
 * that the normal model has what it needs. */
fd_vec3 fd_mindlin_slide(const fd_contact_law* law, const fd_contact_input* input, double normal_force,
                         double* history, double* columns);
fd_status fd_mindlin_check_law(const fd_contact_law* law);

/* Rolling and twisting spring-dashpot-sliders (src/contact/sds_torque.c):
 * roll dsds / csds (LAMMPS `rolling sds`), spin dsds / csds (LAMMPS
 * `twisting sds`) and marshall (LAMMPS `twisting marshall`). critical_force is
 * the normal force their Coulomb limits scale with (LAMMPS Fncrit = |F_n|).
 * Each writes its loads, history, columns and energy books. */
void fd_sds_roll_evaluate(const fd_contact_law* law, const fd_contact_input* input, double critical_force,
                          double* history, double* columns, fd_contact_loads* loads);
void fd_sds_spin_evaluate(const fd_contact_law* law, const fd_contact_input* input, double critical_force,
                          double* history, double* columns, fd_contact_loads* loads);
fd_status fd_sds_torque_check_law(const fd_contact_law* law);
/* The twisting spring's k (N m/rad), gamma (N m s/rad) and its static and
 * kinetic friction lengths mu_s, mu_k (m) at a contact: the spin model's own,
 * or marshall's from the slide model and the contact radius sqrt(R_eff delta)
 * (its dashpot from the slide's at the contact, x_gamma_t times the normal
 * dashpot c_n, normal_dashpot, where the slide model takes that form). */
typedef struct fd_sds_spin_constants {
    double k, gamma, mu_s, mu_k;
} fd_sds_spin_constants;
fd_sds_spin_constants fd_sds_spin_constants_of(const fd_contact_law* law, double effective_radius, double penetration,
                                               double normal_dashpot);

/* Carries a tangent-plane vector from the contact frame with normal `from` to
 * the one with normal `to` (both unit): the minimal rotation taking `from` to
 * `to` (Rodrigues), then a rotation by `twist` (rad) about `to`; the result
 * is kept in the new tangent plane with the length of `vector`. */
fd_vec3 fd_sds_transport(fd_vec3 vector, fd_vec3 from, fd_vec3 to, double twist);

/* PFC linear / rrlinear (src/contact/pfc.c): the normal kernel (reads and
 * writes its history through input->history), the friction stage of a law
 * whose normal model is pfc_linear (slide pfc_linear, roll pfc_rrlinear and the
 * energy partitions), and the check of their combination. */
fd_normal_result fd_pfc_normal(const fd_contact_law* law, const fd_contact_input* input);
/* k_n of a pfc_linear contact: kn, or A E* / L by the deformability method. */
double fd_pfc_normal_stiffness(const double* normal_params, const fd_contact_input* input);
void fd_pfc_evaluate(const fd_contact_law* law, const fd_contact_input* input, double* history, double* columns,
                     fd_contact_loads* loads);
fd_status fd_pfc_check_law(const fd_contact_law* law);
/* PFC surface-property inheritance (papers/001 "Surface Property
 * Inheritance", Eq. 11): the law between two materials from the laws each has
 * with itself, when both are PFC laws of the same sub-models. Fills *out
 * (columns and history layout from law_aa) or fails saying why. */
fd_status fd_pfc_inherit_law(const fd_contact_law* law_aa, const fd_contact_law* law_bb, fd_contact_law* out);

/* Checks the combination of sub-models of a law (e.g. Fang & Negrut roll and
 * spin take mu_s, mu_k, K_E from the Fang & Negrut slide model). */
fd_status fd_friction_check_law(const fd_contact_law* law);

/* The complementarity stepper's models (src/contact/cone_models.c): the
 * history block of a 'rigid' contact (the last reaction, for the warm start)
 * and the check that a law does not mix cone models with penalty ones. */
enum {
    FD_CONE_HISTORY_FORCE = 0,   /* force on body i, world, N (3) */
    FD_CONE_HISTORY_TORQUE = 3,  /* rolling + spinning torque on body i, world, N m (3) */
    FD_CONE_HISTORY = 6,
};
fd_status fd_cone_check_law(const fd_contact_law* law);

/* One body of a contact as the critical step sees it (src/contact/critical_step.c). */
typedef struct fd_step_body {
    double mass;                 /* kg; 0 for a static body */
    double inertia;              /* kg m^2, the smallest principal moment; 0 for a static body */
    double translation_mobility; /* 1/kg: 1/m, 0 when static or every translation is locked */
    double rotation_mobility;    /* 1/(kg m^2): 1/I about its free axis of least inertia, 0 when static or
                                    every rotation is locked */
    double lever_mobility;       /* 1/kg: the largest d^2 / I over its free axes, d the farthest the surface
                                    reaches from the axis (2.5/m for a sphere): what a tangential force at the
                                    surface adds to 1/m by turning it */
    double arm;                  /* m, centre to the farthest surface point (bounding radius; 0 for a plane) */
    double curvature;            /* 1/m, the smallest normal curvature of the surface: 1/R sphere, c/a^2 ellipsoid,
                                    0 plane (the stiffest roll and spin springs, the largest R_e) */
} fd_step_body;

/* The stability limit of explicit integration (symplectic Euler, velocity
 * Verlet) for a law's springs and dashpots at a contact between bodies i and
 * j, each body with `coordination` such contacts (docs/models/critical-step.md):
 * dt_c = 2 / (beta + sqrt(beta^2 + omega^2)), omega^2 = Z sum k mu,
 * 2 beta = Z sum c mu over every spring k and dashpot c the law integrates
 * explicitly, mu the mobility of the relative motion each resists; or the
 * C-SDS spring update's 2 gamma / k when smaller. */
typedef struct fd_critical_step {
    double time_step;                  /* s; infinity when the law has no spring or dashpot */
    double rate_squared;               /* omega^2, 1/s^2 */
    double damping_rate;               /* 2 beta, 1/s */
    double coordination;               /* Z */
    const char* limiting;              /* the spring or dashpot whose own limit is the smallest ("none") */
    double coefficient;                /* its stiffness or damping */
    const char* unit;                  /* and the unit of that */
} fd_critical_step;
fd_critical_step fd_contact_law_critical_step(const fd_contact_law* law, const fd_step_body* i, const fd_step_body* j,
                                              double coordination);

/* Dimensionless damping gamma of the damped Hertz law
 * x'' = -x^(3/2) - gamma x^(1/4) x' whose coefficient of restitution is e
 * (found by bisection on the integrated impact); exposed for the tests. */
double fd_hertz_damping_for_restitution(double restitution);
double fd_hertz_restitution_for_damping(double gamma);

#endif
