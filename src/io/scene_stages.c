/* Stages of a scene (docs/stages.md): the run as a sequence of stages, each
 * with its longest duration, an optional end when the kinetic energy of the
 * dynamic bodies falls below a threshold, and what changes when it begins:
 * the motion of walls (fd_world_set_wall_motion: a drum starts turning, a
 * gate slides open), the inlets that pour (fd_world_set_inlet_active), the
 * outlets that remove (fd_world_set_outlet_active) and gravity
 * (fd_world_set_gravity). Names are resolved against the built world
 * at load, so a typo is an error at its line, not a surprise later.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/scene_loader.h"

/* ---------------------------------------------------------------- keys */

typedef struct fd_scene_stage_motion {
    fd_scene_seen seen;
    const char* body;
    fd_scene_motion motion;
} fd_scene_stage_motion;

/* An inlet or an outlet, by name, paused or resumed (closed or opened). */
typedef struct fd_scene_stage_switch {
    fd_scene_seen seen;
    const char* name;
    bool active;
} fd_scene_stage_switch;

typedef struct fd_scene_stage_output {
    fd_scene_seen seen;
    double csv_interval;
    double vtu_interval;
} fd_scene_stage_output;

typedef struct fd_scene_stage {
    fd_scene_seen seen;
    const char* name;
    double duration;
    double until_kinetic_energy;
    double min_duration;
    fd_vec3 gravity;
    fd_scene_list motions; /* fd_scene_stage_motion */
    fd_scene_list inlets;  /* fd_scene_stage_switch */
    fd_scene_list outlets; /* fd_scene_stage_switch */
    fd_scene_stage_output output;
} fd_scene_stage;

static const fd_scene_key stage_motion_keys[] = {
    {.name = "body",
     .type = FD_SCENE_STRING,
     .doc = "name of a static body (a wall)",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_stage_motion, body)},
    {.name = "motion",
     .type = FD_SCENE_MAP,
     .doc = "its motion from the stage's start, from where it is then (keys of bodies[].motion; {} stops it)",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_stage_motion, motion),
     .sub = &fd_scene_motion_table},
};
CHECK_KEYS(stage_motion_keys);
static const fd_scene_table stage_motion_table = {
    "stages[].motions[]", "A wall's motion from the stage on.", KEYS(stage_motion_keys),
    sizeof(fd_scene_stage_motion), offsetof(fd_scene_stage_motion, seen)};

static const fd_scene_key stage_inlet_keys[] = {
    {.name = "inlet",
     .type = FD_SCENE_STRING,
     .doc = "name of an inlet",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_stage_switch, name)},
    {.name = "active",
     .type = FD_SCENE_BOOL,
     .doc = "false pauses it (its schedule stands still), true resumes it where it stopped",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_stage_switch, active)},
};
CHECK_KEYS(stage_inlet_keys);
static const fd_scene_table stage_inlet_table = {
    "stages[].inlets[]", "An inlet paused or resumed when the stage begins.", KEYS(stage_inlet_keys),
    sizeof(fd_scene_stage_switch), offsetof(fd_scene_stage_switch, seen)};

static const fd_scene_key stage_outlet_keys[] = {
    {.name = "outlet",
     .type = FD_SCENE_STRING,
     .doc = "name of an outlet",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_stage_switch, name)},
    {.name = "active",
     .type = FD_SCENE_BOOL,
     .doc = "false closes it (bodies in its region stay), true opens it again (from its start_time on)",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_stage_switch, active)},
};
CHECK_KEYS(stage_outlet_keys);
static const fd_scene_table stage_outlet_table = {
    "stages[].outlets[]", "An outlet closed or opened when the stage begins.", KEYS(stage_outlet_keys),
    sizeof(fd_scene_stage_switch), offsetof(fd_scene_stage_switch, seen)};

static const fd_scene_key stage_output_keys[] = {
    {.name = "csv_interval",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time between CSV rows from the stage on (0 = every step)",
     .range = GE0,
     .offset = offsetof(fd_scene_stage_output, csv_interval),
     .def_text = "unchanged"},
    {.name = "vtu_interval",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time between VTU snapshots from the stage on (0 = none; needs output.vtu_interval > 0)",
     .range = GE0,
     .offset = offsetof(fd_scene_stage_output, vtu_interval),
     .def_text = "unchanged"},
};
CHECK_KEYS(stage_output_keys);
static const fd_scene_table stage_output_table = {
    "stages[].output", "Output intervals from the stage on (rows still fall on multiples of the interval from t = 0).",
    KEYS(stage_output_keys), sizeof(fd_scene_stage_output), offsetof(fd_scene_stage_output, seen)};

static const fd_scene_key stage_keys[] = {
    {.name = "name",
     .type = FD_SCENE_STRING,
     .doc = "unique stage name (messages, the summary)",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_stage, name)},
    {.name = "duration",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "the stage's length; with until_kinetic_energy, its longest",
     .flags = FD_SCENE_REQUIRED,
     .range = GT0,
     .offset = offsetof(fd_scene_stage, duration)},
    {.name = "until_kinetic_energy",
     .type = FD_SCENE_NUMBER,
     .unit = "J",
     .doc = "end the stage as soon as the dynamic bodies' kinetic energy (translation + rotation) is below this",
     .range = GT0,
     .offset = offsetof(fd_scene_stage, until_kinetic_energy),
     .def_text = "none"},
    {.name = "min_duration",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "until_kinetic_energy is tested only after this time in the stage (a pile at rest before the pour)",
     .range = GE0,
     .offset = offsetof(fd_scene_stage, min_duration)},
    {.name = "gravity",
     .type = FD_SCENE_VEC3,
     .unit = "m/s^2",
     .doc = "gravity from the stage on (the ledger books the change of potential energy)",
     .range = ANY,
     .offset = offsetof(fd_scene_stage, gravity),
     .def_text = "unchanged"},
    {.name = "motions",
     .type = FD_SCENE_LIST,
     .doc = "walls whose motion changes when the stage begins (see below)",
     .offset = offsetof(fd_scene_stage, motions),
     .sub = &stage_motion_table},
    {.name = "inlets",
     .type = FD_SCENE_LIST,
     .doc = "inlets paused or resumed when the stage begins (see below)",
     .offset = offsetof(fd_scene_stage, inlets),
     .sub = &stage_inlet_table},
    {.name = "outlets",
     .type = FD_SCENE_LIST,
     .doc = "outlets closed or opened when the stage begins (see below)",
     .offset = offsetof(fd_scene_stage, outlets),
     .sub = &stage_outlet_table},
    {.name = "output",
     .type = FD_SCENE_MAP,
     .doc = "output intervals from the stage on (see below)",
     .offset = offsetof(fd_scene_stage, output),
     .sub = &stage_output_table},
};
CHECK_KEYS(stage_keys);
const fd_scene_table fd_scene_stage_table = {
    "stages[]",
    "The run as a sequence of stages (optional; docs/stages.md). Each begins when the one before it ends and applies "
    "its changes then; the run ends with the last.",
    KEYS(stage_keys), sizeof(fd_scene_stage), offsetof(fd_scene_stage, seen)};

/* ---------------------------------------------------------------- built */

typedef struct stage_motion {
    fd_body_id body;
    fd_wall_motion motion;
} stage_motion;

/* An inlet or an outlet switched when the stage begins. */
typedef struct stage_switch {
    int index;
    bool active;
} stage_switch;

typedef struct built_stage {
    char* name;
    double duration;
    double until_kinetic_energy; /* 0: none */
    double min_duration;
    bool sets_gravity;
    fd_vec3 gravity;
    stage_motion* motions;
    int motion_count;
    stage_switch* inlets;
    int inlet_count;
    stage_switch* outlets;
    int outlet_count;
    double csv_interval; /* s; < 0: unchanged */
    double vtu_interval; /* s; < 0: unchanged */
} built_stage;

struct fd_scene_stage_set {
    built_stage* stages;
    int count;
};

static fd_status fail_at(fd_scene_ctx* ctx, const yaml_node_t* node, const char* format, const char* detail, int s,
                         const char* key)
{
    char path[FD_SCENE_PATH_MAX];
    snprintf(path, sizeof path, "stages[%d]%s%s", s, key[0] ? "." : "", key);
    return fd_scene_fail(ctx, node, path, format, detail);
}

static const char* inlet_name(const fd_world* world, int index)
{
    return fd_world_get_inlet_info(world, index).name;
}

static const char* outlet_name(const fd_world* world, int index)
{
    return fd_world_get_outlet_info(world, index).name;
}

/* What a stage switches by name: the inlets or the outlets of the world. */
typedef struct switch_kind {
    const char* what; /* "inlet" or "outlet": the key of the name, and the word of the messages */
    const fd_scene_table* table;
    int (*count)(const fd_world* world);
    const char* (*name)(const fd_world* world, int index);
} switch_kind;

static const switch_kind inlet_switches = {"inlet", &stage_inlet_table, fd_world_inlet_count, inlet_name};
static const switch_kind outlet_switches = {"outlet", &stage_outlet_table, fd_world_outlet_count, outlet_name};

/* The entries of list (fd_scene_stage_switch) of stage s, each resolved to
 * the index of the inlet or outlet it names, into out[0, *count). */
static fd_status build_switches(fd_scene_ctx* ctx, const fd_scene_list* list, const switch_kind* kind, int s,
                                const fd_world* world, stage_switch* out, int* count)
{
    const fd_scene_stage_switch* items = list->items;
    int available = kind->count(world);
    for (int k = 0; k < list->count; ++k) {
        int index = 0;
        while (index < available && strcmp(kind->name(world, index), items[k].name) != 0) {
            ++index;
        }
        if (index == available) {
            char key[64], format[64];
            snprintf(key, sizeof key, "%ss[%d].%s", kind->what, k, kind->what);
            snprintf(format, sizeof format, "no %s is named '%%s'", kind->what);
            return fail_at(ctx, fd_scene_given(kind->table, &items[k], kind->what), format, items[k].name, s, key);
        }
        out[k] = (stage_switch){index, items[k].active};
        *count = k + 1;
    }
    return FD_OK;
}

static fd_status build_stage(fd_scene_ctx* ctx, const fd_scene_stage* in, int s, const fd_world* world,
                             built_stage* out)
{
    out->name = strdup(in->name);
    out->duration = in->duration;
    out->until_kinetic_energy = in->until_kinetic_energy;
    out->min_duration = in->min_duration;
    out->sets_gravity = fd_scene_given(&fd_scene_stage_table, in, "gravity") != NULL;
    out->gravity = in->gravity;
    out->motions = calloc((size_t)(in->motions.count > 0 ? in->motions.count : 1), sizeof *out->motions);
    out->inlets = calloc((size_t)(in->inlets.count > 0 ? in->inlets.count : 1), sizeof *out->inlets);
    out->outlets = calloc((size_t)(in->outlets.count > 0 ? in->outlets.count : 1), sizeof *out->outlets);
    if (!out->name || !out->motions || !out->inlets || !out->outlets) {
        return fail_at(ctx, in->seen.map, "%s", "out of memory", s, "");
    }
    out->csv_interval =
        fd_scene_given(&stage_output_table, &in->output, "csv_interval") ? in->output.csv_interval : -1.0;
    out->vtu_interval =
        fd_scene_given(&stage_output_table, &in->output, "vtu_interval") ? in->output.vtu_interval : -1.0;
    if (out->min_duration > out->duration) {
        return fail_at(ctx, fd_scene_given(&fd_scene_stage_table, in, "min_duration"),
                       "must not exceed the stage's duration%s", "", s, "min_duration");
    }
    const fd_scene_stage_motion* motions = in->motions.items;
    for (int k = 0; k < in->motions.count; ++k) {
        char key[64];
        snprintf(key, sizeof key, "motions[%d].body", k);
        const yaml_node_t* node = fd_scene_given(&stage_motion_table, &motions[k], "body");
        fd_body_id body = fd_world_find_body(world, motions[k].body);
        if (fd_body_id_is_null(body)) {
            return fail_at(ctx, node, "no body is named '%s'", motions[k].body, s, key);
        }
        if (fd_body_get_info(world, body).type != FD_BODY_STATIC) {
            return fail_at(ctx, node, "'%s' is dynamic: only a static body (a wall) takes a prescribed motion",
                           motions[k].body, s, key);
        }
        fd_body_id wall = fd_body_get_info(world, body).wall;
        if (wall.index1 != body.index1) {
            /* The parts of a wall share one pose (fd_world_set_wall_motion). */
            return fail_at(ctx, node, "'%s' is part of a wall: give the wall's name to move all of it",
                           motions[k].body, s, key);
        }
        const fd_scene_motion* m = &motions[k].motion;
        out->motions[k] = (stage_motion){body, {m->velocity, m->velocity_ramp, m->amplitude, m->frequency,
                                                m->angular_velocity, m->angular_velocity_ramp, m->start_time}};
        if (!(m->frequency > 0.0) && (m->amplitude.x != 0.0 || m->amplitude.y != 0.0 || m->amplitude.z != 0.0)) {
            snprintf(key, sizeof key, "motions[%d].motion.frequency", k);
            return fail_at(ctx, motions[k].seen.map, "an amplitude needs a frequency > 0 Hz%s", "", s, key);
        }
        out->motion_count = k + 1;
    }
    fd_status status = build_switches(ctx, &in->inlets, &inlet_switches, s, world, out->inlets, &out->inlet_count);
    if (status != FD_OK) {
        return status;
    }
    return build_switches(ctx, &in->outlets, &outlet_switches, s, world, out->outlets, &out->outlet_count);
}

fd_status fd_scene_build_stages(fd_scene_ctx* ctx, const fd_scene_file* file, fd_scene* out)
{
    out->stage = -1;
    out->stage_start_time = 0.0;
    int n = file->stages.count;
    if (n == 0) {
        return FD_OK;
    }
    out->stages = calloc(1, sizeof *out->stages);
    if (out->stages == NULL || (out->stages->stages = calloc((size_t)n, sizeof(built_stage))) == NULL) {
        return fd_scene_fail(ctx, NULL, "stages", "out of memory");
    }
    const fd_scene_stage* stages = file->stages.items;
    double total = 0.0;
    for (int s = 0; s < n; ++s) {
        for (int t = 0; t < s; ++t) {
            if (strcmp(stages[t].name, stages[s].name) == 0) {
                return fail_at(ctx, fd_scene_given(&fd_scene_stage_table, &stages[s], "name"),
                               "another stage is named '%s'", stages[s].name, s, "name");
            }
        }
        out->stages->count = s + 1;
        fd_status status = build_stage(ctx, &stages[s], s, out->world, &out->stages->stages[s]);
        if (status != FD_OK) {
            return status;
        }
        if (out->stages->stages[s].vtu_interval > 0.0 && !(file->output.vtu_interval > 0.0)) {
            /* The snapshot series (vtu/, the .pvd index) is set up when the run starts. */
            return fail_at(ctx, fd_scene_given(&stage_output_table, &stages[s].output, "vtu_interval"),
                           "snapshots in a stage need output.vtu_interval > 0 (the series starts with the run)%s", "",
                           s, "output.vtu_interval");
        }
        total += stages[s].duration;
    }
    /* The run's length: the stages', capped by time.duration when given. */
    out->duration = fd_scene_given(&fd_scene_time_table, &file->time, "duration") ? fmin(file->time.duration, total)
                                                                                 : total;
    return FD_OK;
}

void fd_scene_free_stages(fd_scene* scene)
{
    if (scene->stages == NULL) {
        return;
    }
    for (int s = 0; s < scene->stages->count; ++s) {
        built_stage* b = &scene->stages->stages[s];
        free(b->name);
        free(b->motions);
        free(b->inlets);
        free(b->outlets);
    }
    free(scene->stages->stages);
    free(scene->stages);
    scene->stages = NULL;
}

/* ---------------------------------------------------------------- running */

int fd_scene_stage_count(const fd_scene* scene)
{
    return scene != NULL && scene->stages != NULL ? scene->stages->count : 0;
}

const char* fd_scene_stage_name(const fd_scene* scene, int stage)
{
    return stage >= 0 && stage < fd_scene_stage_count(scene) ? scene->stages->stages[stage].name : "";
}

double fd_scene_stage_duration(const fd_scene* scene, int stage)
{
    return stage >= 0 && stage < fd_scene_stage_count(scene) ? scene->stages->stages[stage].duration : 0.0;
}

fd_status fd_scene_begin_stage(fd_scene* scene, int stage)
{
    if (stage < 0 || stage >= fd_scene_stage_count(scene)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_scene_begin_stage: no stage %d", stage);
    }
    const built_stage* b = &scene->stages->stages[stage];
    fd_world* world = scene->world;
    fd_status status = b->sets_gravity ? fd_world_set_gravity(world, b->gravity) : FD_OK;
    for (int k = 0; status == FD_OK && k < b->motion_count; ++k) {
        status = fd_world_set_wall_motion(world, b->motions[k].body, &b->motions[k].motion);
    }
    for (int k = 0; status == FD_OK && k < b->inlet_count; ++k) {
        status = fd_world_set_inlet_active(world, b->inlets[k].index, b->inlets[k].active);
    }
    for (int k = 0; status == FD_OK && k < b->outlet_count; ++k) {
        status = fd_world_set_outlet_active(world, b->outlets[k].index, b->outlets[k].active);
    }
    if (status != FD_OK) {
        char message[1024];
        snprintf(message, sizeof message, "%s", fd_last_error());
        return fd_fail(status, "stage '%s': %s", b->name, message);
    }
    scene->stage = stage;
    scene->stage_start_time = fd_world_time(world);
    return FD_OK;
}

bool fd_scene_stage_time_up(const fd_scene* scene, double* kinetic_below)
{
    *kinetic_below = 0.0;
    if (scene->stage < 0 || scene->stage >= fd_scene_stage_count(scene)) {
        return true;
    }
    const built_stage* b = &scene->stages->stages[scene->stage];
    double dt = fd_world_time_step(scene->world);
    double elapsed = fd_world_time(scene->world) - scene->stage_start_time;
    if (elapsed + 0.5 * dt >= b->duration) {
        return true; /* the step nearest the duration, as the run's own step count rounds */
    }
    if (b->until_kinetic_energy > 0.0 && elapsed + 0.5 * dt >= b->min_duration) {
        *kinetic_below = b->until_kinetic_energy;
    }
    return false;
}

bool fd_scene_stage_finished(const fd_scene* scene)
{
    double kinetic_below = 0.0;
    if (fd_scene_stage_time_up(scene, &kinetic_below)) {
        return true;
    }
    if (kinetic_below > 0.0) {
        fd_world_energy e = fd_world_get_energy(scene->world);
        return e.kinetic_translational + e.kinetic_rotational < kinetic_below;
    }
    return false;
}

void fd_scene_stage_output_intervals(const fd_scene* scene, int stage, double* csv_interval, double* vtu_interval)
{
    *csv_interval = scene->output.csv_interval;
    *vtu_interval = scene->output.vtu_interval;
    for (int s = 0; s <= stage && s < fd_scene_stage_count(scene); ++s) {
        const built_stage* b = &scene->stages->stages[s];
        *csv_interval = b->csv_interval >= 0.0 ? b->csv_interval : *csv_interval;
        *vtu_interval = b->vtu_interval >= 0.0 ? b->vtu_interval : *vtu_interval;
    }
}
