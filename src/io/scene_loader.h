/* Scene loader internals: the YAML document with its overrides, error
 * reporting with file:line and key path, and the self-describing key tables
 * that drive parsing, validation messages and docs/scene-format.md.
 *
 * The loader works in three passes over one libyaml document:
 *   1. load the file (libyaml events into document nodes, so every node
 *      keeps its line) and graft each --set override into the node tree;
 *      the items of the top-level bodies list are left out, and read one at
 *      a time, each into a small document of its own, when the bodies are
 *      built (scene_stream.c), so that memory does not grow with the list;
 *   2. walk the tree against the key tables (scene_keys.c, scene_keys_inputs.c,
 *      scene_stages.c, scene_outlet.c; scene_schema.c walks them), filling the
 *      plain structs below: types, ranges, unknown keys, missing keys;
 *   3. check what crosses entries (names, material references, shape keys)
 *      and build the world (scene.c, scene_generate.c).
 * Every error names the node it is about, so it can say FILE:LINE (or the
 * --set argument for a node that came from an override) and the key path.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_SCENE_LOADER_H
#define FD_IO_SCENE_LOADER_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "fricdem/io.h"

/* ---------------------------------------------------------------- document */

#define FD_SCENE_MAX_OVERRIDES 256
#define FD_SCENE_PATH_MAX 512

typedef struct fd_scene_override {
    int first_node; /* 1-based node indices [first_node, end_node) came from this override */
    int end_node;
    const char* arg; /* the argument as given */
    int key_length;  /* length of its key path (before '=') */
    /* bodies.ENTRY.key...=value on a streamed bodies list: applied to the
     * item ENTRY names when that item is read (fd_scene_apply_item_overrides). */
    bool deferred;
    bool matched;
    int item_first_node; /* nodes [item_first_node, item_end_node) of the item being read came from it */
    int item_end_node;
    char closest[64]; /* an item name close to ENTRY, for "did you mean" if none matches */
} fd_scene_override;

/* An anchor of the file and the node it names (scene_stream.c). */
typedef struct fd_scene_anchor {
    char* name;
    int node;
    yaml_mark_t mark;
} fd_scene_anchor;

typedef struct fd_scene_ctx {
    const char* file; /* path as given, for messages */
    char* text;       /* the file contents */
    size_t text_size;
    yaml_document_t doc;
    bool doc_loaded;
    int file_node_count; /* nodes 1..file_node_count came from the file */
    fd_scene_override overrides[FD_SCENE_MAX_OVERRIDES];
    int override_count;
    void** allocations; /* freed with the context */
    int allocation_count;
    int allocation_capacity;
    /* The root's bodies list read as a stream (scene_stream.c): */
    bool bodies_streamed;     /* doc's bodies value is an empty sequence; the items are read from text when built */
    int streamed_body_count;  /* items in that list */
    fd_scene_anchor* anchors; /* every anchor of the file, in file order, naming nodes of doc */
    int anchor_count;
    int anchor_capacity;
    yaml_document_t* item_doc; /* the streamed item being built, or NULL; node indices are its own meanwhile */
    int item_file_node_count;  /* nodes 1..this of item_doc came from the file */
    yaml_node_t origin_node;   /* stand-in for a node that is gone (fd_scene_origin_node) */
    int origin_override;       /* the override origin_node came from, or -1 */
    fd_scene_progress_fn progress; /* fd_scene_load_with_progress; NULL = none */
    void* progress_user;
    int64_t bodies_created;        /* bodies the scene has created so far */
    int64_t bodies_total;          /* bodies the scene will hold */
} fd_scene_ctx;

/* A path given in the scene (a bodies file, a mesh's STL): relative to the
 * scene file's directory unless absolute; false when it does not fit out. */
bool fd_scene_resolve_path(const fd_scene_ctx* ctx, const char* path, char* out, size_t size);

/* Counts one body created; tells the progress callback every 2^14 bodies. */
void fd_scene_body_created(fd_scene_ctx* ctx);

/* fd_scene_load_with_progress from the file's text in memory (a checkpoint's
 * copy, src/io/checkpoint_scene.c); path names it in messages and is where
 * its relative paths start. */
fd_status fd_scene_load_text(const char* path, const char* text, size_t size, const char* const* overrides,
                             int override_count, fd_scene_progress_fn progress, void* user, fd_scene* out);

/* Reads and parses the file (FD_ERR_IO, FD_ERR_PARSE). */
fd_status fd_scene_doc_load(fd_scene_ctx* ctx, const char* path);
/* ctx->text into ctx->doc, the root's bodies list left to be streamed (scene_stream.c). */
fd_status fd_scene_doc_build(fd_scene_ctx* ctx);
/* Reports libyaml's parser error for the file's text (scene_yaml.c); for an
 * override's value (text, size) naming the --set argument o. */
fd_status fd_scene_yaml_problem(const fd_scene_ctx* ctx, const yaml_parser_t* parser);
fd_status fd_scene_override_problem(const fd_scene_ctx* ctx, const yaml_parser_t* parser, const fd_scene_override* o,
                                    const char* text, size_t size);
/* The nodes of a libyaml document: how many, and node index (1-based; NULL
 * out of range). */
static inline int fd_scene_doc_node_count(const yaml_document_t* doc)
{
    return (int)(doc->nodes.top - doc->nodes.start);
}
static inline yaml_node_t* fd_scene_doc_node(const yaml_document_t* doc, int index)
{
    return index >= 1 && index <= fd_scene_doc_node_count(doc) ? doc->nodes.start + index - 1 : NULL;
}
/* Node `node` (1-based) of doc spans [start, end] of the text: its line for messages. */
static inline void fd_scene_set_marks(yaml_document_t* doc, int node, yaml_mark_t start, yaml_mark_t end)
{
    doc->nodes.start[node - 1].start_mark = start;
    doc->nodes.start[node - 1].end_mark = end;
}
/* Copies node index of src, and everything under it, into dst (a different
 * document), lines kept; the copy's index, or 0 (nested too deeply, or out
 * of memory). */
int fd_scene_copy_node(yaml_document_t* dst, const yaml_document_t* src, int index);
/* Grafts "key.path=value" into the document. */
fd_status fd_scene_apply_override(fd_scene_ctx* ctx, const char* arg);
void fd_scene_ctx_free(fd_scene_ctx* ctx);
/* Zeroed memory owned by the context; NULL after reporting an error. */
void* fd_scene_alloc(fd_scene_ctx* ctx, size_t count, size_t size);

yaml_node_t* fd_scene_root(fd_scene_ctx* ctx);
yaml_node_t* fd_scene_node(const fd_scene_ctx* ctx, int index);
/* Item i of a sequence node. */
yaml_node_t* fd_scene_item(const fd_scene_ctx* ctx, const yaml_node_t* sequence, int i);
int fd_scene_item_count(const yaml_node_t* sequence);

/* Reports "FILE:LINE: PATH: message" (or "FILE: --set KEY: PATH: message"
 * for a node that came from an override) and returns FD_ERR_PARSE. node may
 * be NULL (no line); path may be "" (no path). */
fd_status fd_scene_fail(const fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const char* format, ...)
    __attribute__((format(printf, 4, 5)));
/* "LINE" or "--set KEY" for a node, to refer to another place in a message. */
void fd_scene_where(const fd_scene_ctx* ctx, const yaml_node_t* node, char* buffer, size_t size);

/* Scalar text ("" for non-scalars). */
const char* fd_scene_scalar(const yaml_node_t* node);
/* A plain empty, "~" or "null" scalar. */
bool fd_scene_is_null(const yaml_node_t* node);
/* "a mapping", "a sequence", "the string 'x'", "nothing": for "expected X, got Y". */
void fd_scene_describe(const yaml_node_t* node, char* buffer, size_t size);

/* The closest of names to word (edit distance, case-insensitive), or NULL
 * when none is close enough to be a likely typo. */
const char* fd_scene_closest(const char* word, const char* const* names, int count);
/* "a, b, c" into buffer (truncated with "..." if it does not fit). */
void fd_scene_join(char* buffer, size_t size, const char* const* names, int count);

/* ---------------------------------------------------------------- key tables */

typedef enum fd_scene_type {
    FD_SCENE_STRING,    /* const char*, points into the document */
    FD_SCENE_NUMBER,    /* double */
    FD_SCENE_INTEGER,   /* int64_t */
    FD_SCENE_BOOL,      /* bool */
    FD_SCENE_VEC3,      /* fd_vec3 from [x, y, z]; range applies to each component */
    FD_SCENE_QUAT,      /* fd_quat from [w, x, y, z]; normalised if within 1e-6 of unit */
    FD_SCENE_ENUM,      /* int, index into choices */
    FD_SCENE_AXES,      /* uint32_t FD_LOCK_* bits from a list of x, y, z */
    FD_SCENE_NAME_PAIR, /* const char*[2] from [a, b] */
    FD_SCENE_MAP,       /* nested struct described by sub */
    FD_SCENE_LIST,      /* fd_scene_list of structs described by sub */
    FD_SCENE_SUBMODEL,  /* fd_submodel_def from {model: NAME, param: value, ...} (registry) */
} fd_scene_type;

enum {
    FD_SCENE_REQUIRED = 1u << 0,
    FD_SCENE_NONEMPTY = 1u << 1, /* strings and lists */
    FD_SCENE_SHORTHAND = 1u << 2, /* FD_SCENE_MAP: a scalar stands for {first key: scalar} */
};

typedef enum fd_scene_bound {
    FD_SCENE_UNBOUNDED = 0,
    FD_SCENE_INCLUSIVE,
    FD_SCENE_EXCLUSIVE,
} fd_scene_bound;

typedef struct fd_scene_range {
    fd_scene_bound lo_kind, hi_kind;
    double lo, hi;
} fd_scene_range;

#define FD_SCENE_MAX_KEYS 24

/* Where each key of a mapping was found (value nodes, by key index). */
typedef struct fd_scene_seen {
    const yaml_node_t* map;
    const yaml_node_t* value[FD_SCENE_MAX_KEYS];
} fd_scene_seen;

typedef struct fd_scene_list {
    void* items;
    int count;
} fd_scene_list;

typedef struct fd_scene_table fd_scene_table;

typedef struct fd_scene_key {
    const char* name;
    fd_scene_type type;
    const char* unit; /* SI unit, "-" for dimensionless, "" for non-numbers */
    const char* doc;  /* one line */
    unsigned flags;
    fd_scene_range range;       /* numbers, integers, vector components */
    size_t offset;              /* into the target struct */
    double def[4];              /* default: number, integer, bool (0/1), enum index, vector, quaternion */
    const char* def_text;       /* default as written in the docs when not a plain value */
    const fd_scene_table* sub;  /* FD_SCENE_MAP, FD_SCENE_LIST */
    const char* const* choices; /* FD_SCENE_ENUM, NULL-terminated */
    int mechanism;              /* FD_SCENE_SUBMODEL */
} fd_scene_key;

struct fd_scene_table {
    const char* title; /* for the docs */
    const char* doc;
    const fd_scene_key* keys;
    int key_count;
    size_t size;        /* size of the target struct */
    size_t seen_offset; /* of its fd_scene_seen */
};

/* Parses a mapping node into target (defaults applied first). path is a
 * buffer of FD_SCENE_PATH_MAX holding the key path of node; it is restored. */
fd_status fd_scene_parse_map(fd_scene_ctx* ctx, const yaml_node_t* node, const fd_scene_table* table, void* target,
                             char* path);
/* Applies the defaults of every key (recursing into FD_SCENE_MAP). */
void fd_scene_apply_defaults(const fd_scene_table* table, void* target);
/* The value node of key in a parsed struct, or NULL when it was not given. */
const yaml_node_t* fd_scene_given(const fd_scene_table* table, const void* target, const char* key);

/* Writes the key reference (Markdown) generated from the tables. */
void fd_scene_write_reference(FILE* out);

/* ---------------------------------------------------------------- parsed scene */

typedef struct fd_scene_time {
    fd_scene_seen seen;
    double step;
    double duration;
    int integrator;
} fd_scene_time;

typedef struct fd_scene_region {
    fd_scene_seen seen;
    fd_vec3 min;
    fd_vec3 max;
} fd_scene_region;

typedef struct fd_scene_world {
    fd_scene_seen seen;
    fd_vec3 gravity;
    double contact_margin;
    double cell_size;
    double neighbor_skin;
    bool energy_ledger;
    bool lammps_arms;
    bool lammps_legacy_torque;
    int64_t threads;
    int stepper;
    uint32_t periodic;       /* FD_LOCK_X/Y/Z bits: the periodic axes */
    fd_scene_region box;     /* the periodic box */
} fd_scene_world;

typedef struct fd_scene_solver {
    fd_scene_seen seen;
    int method;
    int64_t max_iterations;
    double tolerance;
    double omega;
    double lambda;
    double recovery_speed;
    bool warm_start;
} fd_scene_solver;

typedef struct fd_scene_material {
    fd_scene_seen seen;
    const char* name;
    double density;
    double youngs_modulus;
    double poisson_ratio;
} fd_scene_material;

typedef struct fd_scene_contact {
    fd_scene_seen seen;
    const char* materials[2];
    fd_submodel_def submodel[FD_MECHANISM_COUNT];
} fd_scene_contact;

/* In the order of shape_names (scene_keys.c). */
enum {
    FD_SCENE_SHAPE_SPHERE,
    FD_SCENE_SHAPE_PLANE,
    FD_SCENE_SHAPE_ELLIPSOID,
    FD_SCENE_SHAPE_CYLINDER,
    FD_SCENE_SHAPE_DISK,
    FD_SCENE_SHAPE_BOX,
    FD_SCENE_SHAPE_MESH,
    FD_SCENE_SHAPE_COUNT
};

typedef struct fd_scene_shape {
    fd_scene_seen seen;
    int type;
    double radius;
    fd_vec3 semi_axes;
    fd_vec3 normal;
    double length;        /* cylinder */
    bool capped;          /* cylinder */
    double inner_radius;  /* disk */
    fd_vec3 size;         /* box: full edge lengths */
    const char* file;     /* mesh: STL, relative to the scene file */
    fd_vec3 scale;        /* mesh */
    double feature_angle; /* mesh, degrees */
} fd_scene_shape;

typedef struct fd_scene_rotation {
    fd_scene_seen seen;
    fd_vec3 axis;
    double angle;
} fd_scene_rotation;

typedef struct fd_scene_lock {
    fd_scene_seen seen;
    uint32_t translation;
    uint32_t rotation;
    fd_quat frame;
} fd_scene_lock;

typedef struct fd_scene_motion {
    fd_scene_seen seen;
    fd_vec3 velocity;
    double velocity_ramp;
    fd_vec3 amplitude;
    double frequency;
    fd_vec3 angular_velocity;
    double angular_velocity_ramp;
    double start_time;
} fd_scene_motion;

typedef struct fd_scene_body {
    fd_scene_seen seen;
    const char* name;
    bool is_static;
    const char* material;
    fd_scene_shape shape;
    fd_vec3 position;
    fd_quat orientation;
    fd_scene_rotation rotation;
    fd_vec3 velocity;
    fd_vec3 angular_velocity;
    double mass;
    fd_vec3 inertia;
    fd_scene_lock lock;
    fd_vec3 external_force;
    fd_vec3 external_torque;
    fd_vec3 friction_axis;
    double friction_force;
    fd_scene_motion motion;
} fd_scene_body;

enum { FD_SCENE_GENERATOR_LATTICE, FD_SCENE_GENERATOR_RANDOM };

typedef struct fd_scene_generator {
    fd_scene_seen seen;
    int type;
    int64_t count;
    const char* name_prefix;
    const char* material;
    double radius;
    double radius_spread;
    fd_scene_region region;
    fd_vec3 velocity;
    double velocity_spread;
    double spacing;
    double jitter;
    int64_t seed;
    bool is_static;
    int64_t attempts; /* random: places tried per sphere */
} fd_scene_generator;

typedef struct fd_scene_disk {
    fd_scene_seen seen;
    fd_vec3 center;
    double radius;
    fd_vec3 normal;
    double thickness;
} fd_scene_disk;

typedef struct fd_scene_inlet_region {
    fd_scene_seen seen;
    fd_scene_disk disk;
    fd_scene_region box;
} fd_scene_inlet_region;

typedef struct fd_scene_size {
    fd_scene_seen seen;
    double radius;
    double fraction;
} fd_scene_size;

typedef struct fd_scene_inlet {
    fd_scene_seen seen;
    const char* name;
    const char* material;
    double radius;
    double radius_spread;
    fd_scene_list sizes; /* fd_scene_size */
    fd_scene_inlet_region region;
    double rate;
    int64_t count;
    double start;
    fd_vec3 velocity;
    double velocity_spread;
    int64_t seed;
    int64_t attempts;
    double clearance;
} fd_scene_inlet;

typedef struct fd_scene_half_space {
    fd_scene_seen seen;
    fd_vec3 point;
    fd_vec3 normal;
} fd_scene_half_space;

typedef struct fd_scene_ball {
    fd_scene_seen seen;
    fd_vec3 center;
    double radius;
} fd_scene_ball;

typedef struct fd_scene_outlet_region {
    fd_scene_seen seen;
    fd_scene_region box;
    fd_scene_half_space half_space;
    fd_scene_ball sphere;
} fd_scene_outlet_region;

typedef struct fd_scene_outlet {
    fd_scene_seen seen;
    const char* name;
    fd_scene_outlet_region region;
    double start;
} fd_scene_outlet;

typedef struct fd_scene_output_keys {
    fd_scene_seen seen;
    const char* directory;
    double csv_interval;
    bool bodies_csv;
    bool contacts_csv;
    bool energy_csv;
    bool walls_csv;
    bool events_csv;
    bool outlets_csv;
    double vtu_interval;
    int vtu_format; /* index into vtu_format_names: 0 binary, 1 ascii */
    double checkpoint_interval;
    bool trajectory;
    double trajectory_interval;
    bool trajectory_contacts;
    int trajectory_compression; /* index into trajectory_compression_names: 0 deflate, 1 none */
    int direct_io; /* index into direct_io_names, in fd_direct_io's order */
} fd_scene_output_keys;

enum { FD_SCENE_BODIES_FILE_AUTO, FD_SCENE_BODIES_FILE_CSV, FD_SCENE_BODIES_FILE_HDF5 };

typedef struct fd_scene_bodies_file {
    fd_scene_seen seen;
    const char* path; /* NULL: no bodies file */
    int format;
    const char* group;
    const char* material;
    double radius; /* 0: none */
    bool is_static;
} fd_scene_bodies_file;

typedef struct fd_scene_file {
    fd_scene_seen seen;
    const char* name;
    const char* description;
    fd_scene_time time;
    fd_scene_world world;
    fd_scene_solver solver;
    fd_scene_list materials;  /* fd_scene_material */
    fd_scene_list contacts;   /* fd_scene_contact */
    fd_scene_list bodies;     /* fd_scene_body */
    fd_scene_bodies_file bodies_file;
    fd_scene_list generators; /* fd_scene_generator */
    fd_scene_list inlets;     /* fd_scene_inlet */
    fd_scene_list outlets;    /* fd_scene_outlet */
    fd_scene_output_keys output;
    fd_scene_list stages;     /* fd_scene_stage (scene_stages.c) */
} fd_scene_file;

/* For the key tables (scene_keys.c, scene_keys_inputs.c, scene_stages.c,
 * scene_outlet.c) and the walk that reads them (scene_schema.c). */
/* The keys of an axis-aligned box (min, max of an fd_scene_region), shared by
 * the tables of the world's periodic box, the generators' region and the
 * outlets' box (scene_keys.c). */
enum { FD_SCENE_BOX_KEY_COUNT = 2 };
extern const fd_scene_key fd_scene_box_keys[FD_SCENE_BOX_KEY_COUNT];

#define KEYS(array) (array), (int)(sizeof(array) / sizeof((array)[0]))
#define CHECK_KEYS(array) _Static_assert(sizeof(array) / sizeof((array)[0]) <= FD_SCENE_MAX_KEYS, "too many keys")

/* clang-format off */
#define ANY {FD_SCENE_UNBOUNDED, FD_SCENE_UNBOUNDED, 0, 0}
#define GT0 {FD_SCENE_EXCLUSIVE, FD_SCENE_UNBOUNDED, 0, 0}
#define GE0 {FD_SCENE_INCLUSIVE, FD_SCENE_UNBOUNDED, 0, 0}
#define INT_POSITIVE {FD_SCENE_INCLUSIVE, FD_SCENE_UNBOUNDED, 1, 0}
/* clang-format on */

extern const fd_scene_table fd_scene_file_table;
extern const fd_scene_table fd_scene_time_table;
extern const fd_scene_table fd_scene_world_table;
extern const fd_scene_table fd_scene_solver_table;
extern const fd_scene_table fd_scene_box_table;
extern const fd_scene_table fd_scene_material_table;
extern const fd_scene_table fd_scene_contact_table;
extern const fd_scene_table fd_scene_body_table;
extern const fd_scene_table fd_scene_bodies_file_table;
extern const fd_scene_table fd_scene_shape_table;
extern const fd_scene_table fd_scene_rotation_table;
extern const fd_scene_table fd_scene_lock_table;
extern const fd_scene_table fd_scene_motion_table;
extern const fd_scene_table fd_scene_generator_table;
extern const fd_scene_table fd_scene_region_table;
extern const fd_scene_table fd_scene_inlet_table;
extern const fd_scene_table fd_scene_inlet_region_table;
extern const fd_scene_table fd_scene_disk_table;
extern const fd_scene_table fd_scene_inlet_box_table;
extern const fd_scene_table fd_scene_size_table;
extern const fd_scene_table fd_scene_output_table;
extern const fd_scene_table fd_scene_stage_table;

/* The stages (scene_stages.c): checked against the built world (bodies,
 * inlets) and kept in out->stages. */
fd_status fd_scene_build_stages(fd_scene_ctx* ctx, const fd_scene_file* file, fd_scene* out);
void fd_scene_free_stages(fd_scene* scene);
extern const fd_scene_table fd_scene_outlet_table; /* and its parts, in scene_outlet.c */

/* ---------------------------------------------------------------- streamed bodies */

/* Builds streamed item index (the node of the item's own document). */
typedef fd_status (*fd_scene_item_fn)(fd_scene_ctx* ctx, int index, const yaml_node_t* item, void* user);
/* Reads the root's bodies list from the text again, one item at a time:
 * each into its own document, with the --set overrides that name it, given
 * to build_item, then deleted. Reports overrides that named no item. */
fd_status fd_scene_stream_bodies(fd_scene_ctx* ctx, fd_scene_item_fn build_item, void* user);
/* Grafts the deferred overrides that name streamed item index into its
 * document; *root is the item's node (an override may replace it). */
fd_status fd_scene_apply_item_overrides(fd_scene_ctx* ctx, yaml_document_t* item, int* root, int index);
/* After streaming: the first deferred override that named no item, reported
 * as when the list is one tree ("no entry named 'x' in bodies ..."). */
fd_status fd_scene_check_item_overrides(const fd_scene_ctx* ctx);

/* Where a node came from, kept after its document is gone: a streamed
 * body's name must be quoted when a later body repeats it. */
typedef struct fd_scene_origin {
    uint32_t line;    /* 1-based; 0 for none */
    int32_t override; /* index into ctx->overrides, or -1 */
} fd_scene_origin;
fd_scene_origin fd_scene_origin_of(const fd_scene_ctx* ctx, const yaml_node_t* node);
/* A stand-in node (ctx->origin_node) that fd_scene_where and fd_scene_fail
 * place at origin; valid until the next call. */
const yaml_node_t* fd_scene_origin_node(fd_scene_ctx* ctx, fd_scene_origin origin);

/* ---------------------------------------------------------------- building */

/* Set of body names, for uniqueness across bodies and generators. It keeps
 * where each name was given (fd_scene_origin), not the node: the node of a
 * streamed body is gone once the body is built. */
typedef struct fd_scene_names fd_scene_names;
fd_scene_names* fd_scene_names_create(fd_scene_ctx* ctx);
void fd_scene_names_free(fd_scene_names* names);
/* Adds name; returns false if it was already there (*where gets a node that
 * fd_scene_where places where it was first given, valid until the next
 * call). Returns false with *where = NULL when out of memory. */
bool fd_scene_names_add(fd_scene_names* names, const char* name, const yaml_node_t* node, const yaml_node_t** where);

/* "did you mean 'x'? materials: a, b" (or "materials: a, b") for an unknown
 * material name, into hint; false when out of memory (reported). */
bool fd_scene_material_hint(fd_scene_ctx* ctx, const fd_scene_file* file, const char* name, char* hint, size_t size);
/* Material id of a name used at node (error listing the materials if unknown). */
fd_status fd_scene_find_material(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file, const char* name,
                                 const yaml_node_t* node, const char* path, fd_material_id* id);

/* Creates the bodies of one generator (scene_generate.c). */
fd_status fd_scene_generate(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file,
                            const fd_scene_generator* gen, int index, fd_scene_names* names);

/* Bodies from the file of `bodies_file` (scene_bodies_file.c): the number of
 * rows it holds, counted cheaply (CSV: its line breaks; HDF5: the length of
 * its datasets), to reserve room; 0 without a file or when it cannot be read
 * (fd_scene_load_bodies_file then says why). */
int64_t fd_scene_bodies_file_rows(const fd_scene_ctx* ctx, const fd_scene_file* file);
/* Creates one sphere per row, after the scene's `bodies` and before the
 * generators. Errors: "FILE:LINE: column 'x': ..." (CSV) or "FILE: dataset
 * 'x', row R: ..." (HDF5), FD_ERR_PARSE. */
fd_status fd_scene_load_bodies_file(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file);

/* Adds the inlet of one entry to the world (scene_inlet.c). */
fd_status fd_scene_build_inlet(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file, int index);
/* Adds the outlet of one entry to the world (scene_outlet.c). */
fd_status fd_scene_build_outlet(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file, int index);

#endif
