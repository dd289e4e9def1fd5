/* The CSV time series of the run outputs (output.c says when rows are due
 * and how files stay whole; docs/output-format.md lists every column):
 * opening the files with their headers and writing the rows of an output
 * time, of a step's events and of the complementarity solver. This file
 * formats and writes rows; it does not decide when.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/math.h"
#include "io/run_outputs.h"

static bool open_csv(fd_output* output, csv_file* file, const char* name)
{
    const char* path = fd_output_path(output, "%s", name);
    *file = (csv_file){.name = name};
    if (!fd_block_file_open(&file->block, path, output->settings.direct_io, &output->write_rates)) {
        fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", path, strerror(errno));
        return false;
    }
    file->open = true;
    return true;
}

/* Everything is flushed after each output time, so closing writes nothing. */
bool fd_output_close_csv(csv_file* file)
{
    bool ok = !file->open || fd_block_file_close(&file->block);
    file->open = false;
    return ok;
}


static const char* const bodies_columns[][2] = {
    {"time", "s"},   {"step", "-"},    {"body", "-"},    {"name", "-"},    {"x", "m"},       {"y", "m"},
    {"z", "m"},      {"qw", "-"},      {"qx", "-"},      {"qy", "-"},      {"qz", "-"},      {"vx", "m/s"},
    {"vy", "m/s"},   {"vz", "m/s"},    {"wx", "rad/s"},  {"wy", "rad/s"},  {"wz", "rad/s"},  {"radius", "m"},
    {"mass", "kg"},  {"material", "-"},
};

static const char* const contacts_columns[][2] = {
    {"time", "s"},         {"step", "-"},         {"id", "-"},           {"body_i", "-"},
    {"body_j", "-"},       {"name_i", "-"},       {"name_j", "-"},       {"px", "m"},
    {"py", "m"},           {"pz", "m"},           {"nx", "-"},           {"ny", "-"},
    {"nz", "-"},           {"penetration", "m"},  {"normal_force", "N"}, {"fsx", "N"},
    {"fsy", "N"},          {"fsz", "N"},          {"roll_i_x", "N m"},   {"roll_i_y", "N m"},
    {"roll_i_z", "N m"},   {"roll_j_x", "N m"},   {"roll_j_y", "N m"},   {"roll_j_z", "N m"},
    {"spin_i_x", "N m"},   {"spin_i_y", "N m"},   {"spin_i_z", "N m"},   {"spin_j_x", "N m"},
    {"spin_j_y", "N m"},   {"spin_j_z", "N m"},
    /* the contact's energy books (fd_energy_books), per mechanism */
    {"stored_normal", "J"},  {"dashpot_normal", "J"}, {"slip_normal", "J"},  {"created_normal", "J"},
    {"work_normal", "J"},    {"stored_slide", "J"},   {"dashpot_slide", "J"}, {"slip_slide", "J"},
    {"created_slide", "J"},  {"work_slide", "J"},     {"stored_roll", "J"},   {"dashpot_roll", "J"},
    {"slip_roll", "J"},      {"created_roll", "J"},   {"work_roll", "J"},     {"stored_spin", "J"},
    {"dashpot_spin", "J"},   {"slip_spin", "J"},      {"created_spin", "J"},  {"work_spin", "J"},
};

/* The energy ledger (docs/energy.md): per mechanism in fd_mechanism order. */
static const char* const energy_columns[][2] = {
    {"time", "s"},
    {"step", "-"},
    {"kinetic_translational", "J"},
    {"kinetic_rotational", "J"},
    {"gravitational", "J"},
    {"stored_normal", "J"},
    {"stored_slide", "J"},
    {"stored_roll", "J"},
    {"stored_spin", "J"},
    {"dashpot_normal", "J"},
    {"dashpot_slide", "J"},
    {"dashpot_roll", "J"},
    {"dashpot_spin", "J"},
    {"slip_normal", "J"},
    {"slip_slide", "J"},
    {"slip_roll", "J"},
    {"slip_spin", "J"},
    {"created_normal", "J"},
    {"created_slide", "J"},
    {"created_roll", "J"},
    {"created_spin", "J"},
    {"released", "J"},
    {"external_work", "J"},
    {"constraint_work", "J"},
    {"inserted", "J"},
    {"removed", "J"},
    {"total", "J"},
    {"closure_error", "J"},
};

static const char* const outlets_columns[][2] = {
    {"time", "s"},       {"step", "-"},      {"outlet", "-"},           {"removed", "-"},
    {"removed_mass", "kg"}, {"total_removed", "-"}, {"total_removed_mass", "kg"},
};

static const char* const solver_columns[][2] = {
    {"time", "s"}, {"step", "-"}, {"iterations", "-"}, {"residual", "m/s"}, {"contacts", "-"},
};

static const char* const walls_columns[][2] = {
    {"time", "s"},       {"step", "-"},       {"wall", "-"},       {"force_x", "N"},   {"force_y", "N"},
    {"force_z", "N"},    {"torque_x", "N m"}, {"torque_y", "N m"}, {"torque_z", "N m"}, {"power", "W"},
    {"position_x", "m"}, {"position_y", "m"}, {"position_z", "m"},
};

static const char* const events_columns[][2] = {
    {"time", "s"}, {"step", "-"},   {"event", "-"},  {"mechanism", "-"}, {"contact", "-"},
    {"body_i", "-"}, {"body_j", "-"}, {"name_i", "-"}, {"name_j", "-"},
};

#define COUNT_OF(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* A name as a CSV field, quoted (RFC 4180) when it holds a comma, a quote
 * or a line break. */
static void text_csv_name(fd_text* text, const char* name)
{
    if (!name) {
        return;
    }
    if (strpbrk(name, ",\"\r\n") == NULL) {
        fd_text_append(text, name, strlen(name));
        return;
    }
    fd_text_char(text, '"');
    for (const char* c = name; *c; ++c) {
        if (*c == '"') {
            fd_text_char(text, '"');
        }
        fd_text_char(text, *c);
    }
    fd_text_char(text, '"');
}

/* A row's numbers go through a cursor into room reserved once for all of
 * them (a check per row instead of two per number: most numbers are zeros,
 * which cost less than the checks). */
static char* reserve_numbers(fd_text* text, int count)
{
    size_t room = (size_t)count * (FD_NUMBER_TEXT_MAX + 1) + 1; /* each ",number", scratch past the last, '\n' */
    return fd_text_reserve(text, room) ? text->bytes + text->length : NULL;
}

static inline char* put_value(char* out, double value)
{
    *out++ = ',';
    return fd_put_g17(out, value);
}

static inline char* put_vec3(char* out, fd_vec3 v)
{
    out = put_value(out, v.x);
    out = put_value(out, v.y);
    return put_value(out, v.z);
}

static void end_numbers(fd_text* text, char* out)
{
    text->length = (size_t)(out - text->bytes);
}

/* The same for the few numbers of a small row (energy, walls, outlets,
 * solver). */
static void text_value(fd_text* text, double value)
{
    char* out = reserve_numbers(text, 1);
    if (out) {
        end_numbers(text, put_value(out, value));
    }
}

static void text_vec3(fd_text* text, fd_vec3 v)
{
    char* out = reserve_numbers(text, 3);
    if (out) {
        end_numbers(text, put_vec3(out, v));
    }
}

/* Line 1: "# units: u1,u2,..."; line 2: the column names. */
static fd_status flush_rows(csv_file* file, bool last);

static fd_status write_csv_header(csv_file* file, const char* const (*columns)[2], int count,
                                  const fd_world* world, int model_columns)
{
    fd_text* text = &file->block.text;
    fd_text_append(text, "# units: ", 9);
    for (int i = 0; i < count; ++i) {
        if (i) {
            fd_text_char(text, ',');
        }
        fd_text_append(text, columns[i][1], strlen(columns[i][1]));
    }
    for (int c = 0; c < model_columns; ++c) {
        const char* unit = fd_world_contact_column_unit(world, c);
        unit = unit && *unit ? unit : "-";
        fd_text_char(text, ',');
        fd_text_append(text, unit, strlen(unit));
    }
    fd_text_char(text, '\n');
    for (int i = 0; i < count; ++i) {
        if (i) {
            fd_text_char(text, ',');
        }
        fd_text_append(text, columns[i][0], strlen(columns[i][0]));
    }
    for (int c = 0; c < model_columns; ++c) {
        fd_text_char(text, ',');
        text_csv_name(text, fd_world_contact_column_name(world, c));
    }
    fd_text_char(text, '\n');
    fd_status status = flush_rows(file, true);
    file->header = fd_block_file_size(&file->block);
    return status;
}

/* "time,step," of a row, formatted once per output time. */
static void row_prefix(char* prefix, double time, int64_t step)
{
    size_t length = fd_format_g17(time, prefix);
    prefix[length++] = ',';
    length += fd_format_integer(step, prefix + length);
    prefix[length++] = ',';
    prefix[length] = '\0';
}

/* Rows are formatted into the file's text buffer and written in blocks
 * of about a megabyte (number_format.h: ~5x faster than fprintf), directly
 * or through the page cache (block_file.h), behind the formatting of the
 * next block. Called after each whole row, so every block ends at a row's
 * end; `last` writes what is left of an output time's rows and waits until
 * the file holds them all. */
enum { CSV_BLOCK_BYTES = 1 << 20 };

static fd_status flush_rows(csv_file* file, bool last)
{
    fd_block_file* block = &file->block;
    if (fd_block_file_pending(block) < CSV_BLOCK_BYTES && !last) {
        return FD_OK;
    }
    if (!(last ? fd_block_file_flush(block) : fd_block_file_write_behind(block))) {
        return block->text.failed ? fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory writing %s", file->name)
                                  : fd_fail(FD_ERR_IO, "output: writing %s failed: %s", file->name, strerror(errno));
    }
    return FD_OK;
}

/* Ends a row written straight into the file's text (a row of a few
 * objects: walls, events), writing a block when one is full. */
static fd_status end_row(csv_file* file)
{
    fd_text_char(&file->block.text, '\n');
    return flush_rows(file, false);
}

/* ------------------------------------------------ rows in parallel batches */

/* What every row of an output time shares, in a batch or written straight
 * (energy, walls, outlets, solver): its "time,step," is formatted once. */
typedef struct row_context {
    const fd_output* output;
    const fd_world* world;
    char prefix[2 * FD_NUMBER_TEXT_MAX + 4]; /* "time,step," */
    size_t prefix_length;
} row_context;

/* Appends row `index` (a body slot, or a contact) to text; an error when
 * the world refused to give it (its message set by fd_fail, on the calling
 * thread). */
typedef fd_status (*row_formatter)(fd_text* text, const row_context* context, int index);

/* Rows per piece (a few hundred kilobytes of text), and pieces per thread
 * in a batch: the threads take pieces as they come free. */
enum { ROWS_PER_PIECE = 512, PIECES_PER_THREAD = 4 };

/* Appends a formatted batch's pieces to the file in order, writing blocks
 * as they fill. */
static fd_status append_batch(csv_file* file, fd_text* pieces, int count)
{
    for (int k = 0; k < count; ++k) {
        fd_text_append(&file->block.text, pieces[k].bytes, pieces[k].length);
        fd_status status = flush_rows(file, false);
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

/* Rows 0..count-1 of one file, formatted by the world's threads (formatting
 * is most of a CSV frame's cost: about 14 ns a number) and written in row
 * order, so the file's bytes are the same for any thread count. A pipeline
 * of batches: while the threads format batch k, one of them first appends
 * and writes batch k - 1 (its direct writes wait for the device), then
 * joins the others. */
static fd_status write_rows(fd_output* output, csv_file* file, const row_context* context, int count,
                            row_formatter format)
{
    int threads = fd_world_get_def(context->world).thread_count;
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    if (threads == 1) {
        /* Straight into the file's text: no pieces to copy (the blocks are
         * written behind the next ones' formatting all the same). */
        for (int index = 0; index < count; ++index) {
            fd_status status = format(&file->block.text, context, index);
            if (status == FD_OK) {
                status = flush_rows(file, false);
            }
            if (status != FD_OK) {
                return status;
            }
        }
        return flush_rows(file, true);
    }
    const int pieces = threads * PIECES_PER_THREAD; /* per batch */
    if (2 * pieces > output->row_text_count) {
        fd_text* grown = realloc(output->row_texts, (size_t)(2 * pieces) * sizeof *grown);
        if (!grown) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory writing %s", file->name);
        }
        memset(grown + output->row_text_count, 0, (size_t)(2 * pieces - output->row_text_count) * sizeof *grown);
        output->row_texts = grown;
        output->row_text_count = 2 * pieces;
    }
    const int batch = pieces * ROWS_PER_PIECE;
    const int batches = (count + batch - 1) / batch;
    for (int k = 0; k <= batches; ++k) {
        fd_text* forming = output->row_texts + (k % 2) * pieces;   /* batch k, being formatted */
        fd_text* ready = output->row_texts + ((k + 1) % 2) * pieces; /* batch k - 1, to write */
        const int first = k * batch;
        int ready_pieces = 0;
        if (k > 0) {
            int rows = count - (k - 1) * batch < batch ? count - (k - 1) * batch : batch;
            ready_pieces = (rows + ROWS_PER_PIECE - 1) / ROWS_PER_PIECE;
        }
        int failed = 0;
        fd_status written = FD_OK;
#pragma omp parallel num_threads(threads) if (threads > 1) reduction(+ : failed)
        {
            /* The calling thread writes (master, not any thread: a write
             * error's message must land on its thread, fd_last_error). */
#pragma omp master
            written = append_batch(file, ready, ready_pieces);
            if (k < batches) {
#pragma omp for schedule(dynamic, 1) nowait
                for (int piece = 0; piece < pieces; ++piece) {
                    fd_text* text = &forming[piece];
                    text->length = 0;
                    int begin = first + piece * ROWS_PER_PIECE;
                    int end = begin + ROWS_PER_PIECE < count ? begin + ROWS_PER_PIECE : count;
                    for (int index = begin; index < end; ++index) {
                        if (format(text, context, index) != FD_OK) {
                            ++failed;
                            break;
                        }
                    }
                    failed += text->failed;
                }
            }
        }
        if (written != FD_OK) {
            return written;
        }
        if (failed) {
            for (int piece = 0; piece < pieces; ++piece) {
                if (forming[piece].failed) {
                    return fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory writing %s", file->name);
                }
            }
            /* A worker's message is on its own thread: the batch again on
             * this one, to the row that fails, says why here. */
            for (int index = first; index < count && index < first + batch; ++index) {
                forming[0].length = 0;
                fd_status status = format(&forming[0], context, index);
                if (status != FD_OK) {
                    return status;
                }
            }
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "output: a row of %s could not be written", file->name);
        }
    }
    return flush_rows(file, true);
}

static fd_status format_body_row(fd_text* text, const row_context* context, int index)
{
    const fd_world* world = context->world;
    fd_body_id id = fd_world_body_at(world, index);
    if (!fd_body_is_valid(world, id)) {
        return FD_OK; /* a removed body's slot */
    }
    fd_body_info info = fd_body_get_info(world, id);
    if (info.type != FD_BODY_DYNAMIC) {
        return FD_OK;
    }
    fd_body_state s = fd_body_get_state(world, id);
    fd_text_append(text, context->prefix, context->prefix_length);
    fd_text_integer(text, fd_output_body_index(id));
    fd_text_char(text, ',');
    text_csv_name(text, info.name);
    char* out = reserve_numbers(text, 15);
    if (!out) {
        return FD_OK; /* text->failed: the caller reports it */
    }
    out = put_vec3(out, s.position);
    out = put_value(out, s.orientation.w);
    out = put_value(out, s.orientation.x);
    out = put_value(out, s.orientation.y);
    out = put_value(out, s.orientation.z);
    out = put_vec3(out, s.velocity);
    out = put_vec3(out, s.angular_velocity);
    /* What a packing fraction or a mass flow needs, and what reading the
     * frame back as a bodies_file needs to give the same bodies. */
    out = put_value(out, info.shape.type == FD_SHAPE_SPHERE ? info.shape.radius : info.bounding_radius);
    out = put_value(out, info.mass);
    *out++ = ',';
    end_numbers(text, out);
    text_csv_name(text, fd_material_name(world, info.material));
    fd_text_char(text, '\n');
    return FD_OK;
}

static void start_rows(row_context* context, const fd_output* output, const fd_world* world, double time,
                       int64_t step)
{
    context->output = output;
    context->world = world;
    row_prefix(context->prefix, time, step);
    context->prefix_length = strlen(context->prefix);
}

/* Starts a row of one of a few named objects (a wall, an outlet), written
 * straight into the file's text rather than in parallel batches:
 * "time,step,NAME". Returns the text for the rest of the row. */
static fd_text* start_named_row(csv_file* file, const row_context* context, const char* name)
{
    fd_text* text = &file->block.text;
    fd_text_append(text, context->prefix, context->prefix_length);
    text_csv_name(text, name);
    return text;
}

static fd_status write_bodies_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    row_context context;
    start_rows(&context, output, world, time, step);
    return write_rows(output, &output->bodies, &context, fd_world_body_count(world), format_body_row);
}

/* Contacts can be written only after a force pass that recorded them. */
fd_status fd_output_check_contacts_recorded(const fd_world* world, const char* what)
{
    if (fd_world_contacts_recorded(world)) {
        return FD_OK;
    }
    return fd_fail(FD_ERR_INVALID_ARGUMENT,
                   "output: %s needs the contact details of step %lld, which the world did not record (call "
                   "fd_world_request_contacts before a step when fd_output_wants_contacts says so)",
                   what, (long long)fd_world_step_count(world));
}

static fd_status format_contact_row(fd_text* text, const row_context* context, int index)
{
    const fd_world* world = context->world;
    fd_contact_view c;
    fd_status status = fd_world_get_contact(world, index, &c);
    if (status != FD_OK) {
        return status;
    }
    const fd_contact_geometry* g = &c.geometry;
    const fd_contact_loads* l = &c.loads;
    fd_vec3 point = fd_v3_scale(0.5, fd_v3_add(g->point_i, g->point_j));
    fd_text_append(text, context->prefix, context->prefix_length);
    fd_text_integer(text, (int64_t)c.id);
    fd_text_char(text, ',');
    fd_text_integer(text, fd_output_body_index(c.body_i));
    fd_text_char(text, ',');
    fd_text_integer(text, fd_output_body_index(c.body_j));
    fd_text_char(text, ',');
    text_csv_name(text, fd_body_get_name(world, c.body_i));
    fd_text_char(text, ',');
    text_csv_name(text, fd_body_get_name(world, c.body_j));
    const int columns = context->output->contact_column_count;
    char* out = reserve_numbers(text, 23 + 5 * FD_MECHANISM_COUNT + columns);
    if (!out) {
        return FD_OK; /* text->failed: the caller reports it */
    }
    out = put_vec3(out, point);
    out = put_vec3(out, g->normal);
    out = put_value(out, g->penetration);
    out = put_value(out, l->normal_force);
    out = put_vec3(out, l->slide_force);
    out = put_vec3(out, l->roll_torque_i);
    out = put_vec3(out, l->roll_torque_j);
    out = put_vec3(out, l->spin_torque_i);
    out = put_vec3(out, l->spin_torque_j);
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        const fd_energy_books* e = &c.energy[m];
        out = put_value(out, e->stored);
        out = put_value(out, e->dashpot);
        out = put_value(out, e->slip);
        out = put_value(out, e->created);
        out = put_value(out, e->work);
    }
    for (int m = 0; m < columns; ++m) {
        out = put_value(out, (c.columns && m < c.column_count) ? c.columns[m] : NAN);
    }
    *out++ = '\n';
    end_numbers(text, out);
    return FD_OK;
}

static fd_status write_contacts_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    fd_status recorded = fd_output_check_contacts_recorded(world, "contacts.csv");
    if (recorded != FD_OK) {
        return recorded;
    }
    row_context context;
    start_rows(&context, output, world, time, step);
    return write_rows(output, &output->contacts, &context, fd_world_contact_count(world), format_contact_row);
}

static fd_status write_energy_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    fd_world_energy e = fd_world_get_energy(world);
    /* total: the mechanical energy plus the springs' (what dissipation lowers). */
    double total = e.kinetic_translational + e.kinetic_rotational + e.gravitational;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        total += e.stored[m];
    }
    row_context context;
    start_rows(&context, output, world, time, step);
    fd_text* text = &output->energy.block.text;
    fd_text_append(text, context.prefix, context.prefix_length - 1); /* without its trailing comma */
    text_value(text, e.kinetic_translational);
    text_value(text, e.kinetic_rotational);
    text_value(text, e.gravitational);
    const double* books[] = {e.stored, e.dashpot, e.slip, e.created};
    for (int k = 0; k < 4; ++k) {
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            text_value(text, books[k][m]);
        }
    }
    const double tail[] = {e.released, e.external_work, e.constraint_work, e.inserted, e.removed, total,
                           e.closure_error};
    for (int k = 0; k < COUNT_OF(tail); ++k) {
        text_value(text, tail[k]);
    }
    fd_text_char(text, '\n');
    return flush_rows(&output->energy, true);
}

/* A wall, for walls.csv: a static body that is not a sphere (a plane, a
 * wall shape), or one that moves (a sphere held on a path). Fixed spheres
 * (a rough floor of glued grains) are bodies, not walls. A wall of several
 * bodies (a capped drum, a mesh's patches) is one row, under its first
 * body, the others' reactions summed into it (fd_world_wall_reaction). */
static bool is_wall(const fd_world* world, fd_body_id id)
{
    fd_body_info info = fd_body_get_info(world, id);
    if (info.type != FD_BODY_STATIC || info.wall.index1 != id.index1) {
        return false;
    }
    fd_body_state state = fd_body_get_state(world, id);
    bool moves = state.velocity.x != 0.0 || state.velocity.y != 0.0 || state.velocity.z != 0.0 ||
                 state.angular_velocity.x != 0.0 || state.angular_velocity.y != 0.0 || state.angular_velocity.z != 0.0;
    return info.shape.type != FD_SHAPE_SPHERE || moves;
}

static int wall_count(const fd_world* world)
{
    int count = 0;
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        count += is_wall(world, fd_world_body_at(world, b));
    }
    return count;
}

static fd_status write_walls_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    row_context context;
    start_rows(&context, output, world, time, step);
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        fd_body_id id = fd_world_body_at(world, b);
        if (!is_wall(world, id)) {
            continue;
        }
        fd_wall_reaction r = fd_world_wall_reaction(world, id);
        fd_text* text = start_named_row(&output->walls, &context, fd_body_get_name(world, id));
        text_vec3(text, r.force);
        text_vec3(text, r.torque);
        text_value(text, r.power);
        text_vec3(text, fd_body_get_state(world, id).position);
        fd_status status = end_row(&output->walls);
        if (status != FD_OK) {
            return status;
        }
    }
    return flush_rows(&output->walls, true);
}

/* Every event of the last force pass (events are not sampled: each is written once). */
fd_status fd_output_write_events_csv(fd_output* output, const fd_world* world)
{
    const fd_contact_event* events = fd_world_events(world);
    fd_text* text = &output->events.block.text;
    for (int k = 0; k < fd_world_event_count(world); ++k) {
        const fd_contact_event* e = &events[k];
        char fields[256];
        int length = snprintf(fields, sizeof fields, "%.17g,%lld,%s,%s,%llu,%d,%d,", e->time, (long long)e->step,
                              fd_event_type_name(e->type), fd_mechanism_name(e->mechanism),
                              (unsigned long long)e->contact_id, fd_output_body_index(e->body_i),
                              fd_output_body_index(e->body_j));
        fd_text_append(text, fields, (size_t)length);
        text_csv_name(text, fd_body_get_info(world, e->body_i).name);
        fd_text_char(text, ',');
        text_csv_name(text, fd_body_get_info(world, e->body_j).name);
        fd_status status = end_row(&output->events);
        if (status != FD_OK) {
            return status;
        }
    }
    return flush_rows(&output->events, true);
}

/* One row per outlet: what it removed since the last row of this file (since
 * t = 0 for the first row, also of a resumed run's file) and in all. */
static fd_status write_outlets_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    row_context context;
    start_rows(&context, output, world, time, step);
    for (int i = 0; i < fd_world_outlet_count(world); ++i) {
        fd_outlet_info info = fd_world_get_outlet_info(world, i);
        fd_text* text = start_named_row(&output->outlets, &context, info.name);
        fd_text_char(text, ',');
        fd_text_integer(text, info.removed - output->outlet_removed[i]);
        text_value(text, info.removed_mass - output->outlet_mass[i]);
        fd_text_char(text, ',');
        fd_text_integer(text, info.removed);
        text_value(text, info.removed_mass);
        fd_text_char(text, '\n');
        output->outlet_removed[i] = info.removed;
        output->outlet_mass[i] = info.removed_mass;
    }
    return flush_rows(&output->outlets, true);
}

fd_status fd_output_write_csv_row(fd_output* output, const fd_world* world)
{
    double time = fd_world_time(world);
    int64_t step = fd_world_step_count(world);
    fd_status status = FD_OK;
    if (output->bodies.open && status == FD_OK) {
        status = write_bodies_csv(output, world, time, step);
    }
    if (output->contacts.open && status == FD_OK) {
        status = write_contacts_csv(output, world, time, step);
    }
    if (output->energy.open && status == FD_OK) {
        status = write_energy_csv(output, world, time, step);
    }
    if (output->walls.open && status == FD_OK) {
        status = write_walls_csv(output, world, time, step);
    }
    if (output->outlets.open && status == FD_OK) {
        status = write_outlets_csv(output, world, time, step);
    }
    output->csv_times += 1;
    return status;
}

bool fd_output_open_csv_files(fd_output* output, const fd_world* world, bool any_csv, bool outlets_csv)
{
    const fd_output_settings* settings = &output->settings;
    /* The CSV files, each with its header written. */
    output->contact_column_count = settings->contacts_csv ? fd_world_contact_column_count(world) : 0;
    if (output->contact_column_count < 0) {
        output->contact_column_count = 0;
    }
    struct {
        bool wanted;
        csv_file* file;
        const char* name;
        const char* const (*columns)[2];
        int count, model_columns;
    } csvs[] = {
        {settings->bodies_csv, &output->bodies, "bodies.csv", bodies_columns, COUNT_OF(bodies_columns), 0},
        {settings->contacts_csv, &output->contacts, "contacts.csv", contacts_columns, COUNT_OF(contacts_columns),
         output->contact_column_count},
        {settings->energy_csv, &output->energy, "energy.csv", energy_columns, COUNT_OF(energy_columns), 0},
        {settings->events_csv, &output->events, "events.csv", events_columns, COUNT_OF(events_columns), 0},
        {settings->walls_csv && any_csv && wall_count(world) > 0, &output->walls, "walls.csv", walls_columns,
         COUNT_OF(walls_columns), 0},
        {outlets_csv, &output->outlets, "outlets.csv", outlets_columns, COUNT_OF(outlets_columns), 0},
        {any_csv && fd_world_get_def(world).stepper == FD_STEPPER_COMPLEMENTARITY, &output->solver, "solver.csv",
         solver_columns, COUNT_OF(solver_columns), 0},
    };
    for (int i = 0; i < COUNT_OF(csvs); ++i) {
        if (!csvs[i].wanted) {
            continue;
        }
        if (!open_csv(output, csvs[i].file, csvs[i].name) ||
            write_csv_header(csvs[i].file, csvs[i].columns, csvs[i].count, world, csvs[i].model_columns) != FD_OK) {
            return false;
        }
    }
    return true;
}

fd_status fd_output_write_solver_row(fd_output* output, const fd_world* world, double time, int64_t step)
{
    fd_solver_stats stats = fd_world_solver_stats(world);
    row_context context;
    start_rows(&context, output, world, time, step);
    fd_text* text = &output->solver.block.text;
    fd_text_append(text, context.prefix, context.prefix_length);
    fd_text_integer(text, stats.iterations);
    text_value(text, stats.residual);
    fd_text_char(text, ',');
    fd_text_integer(text, stats.contacts);
    fd_text_char(text, '\n');
    return flush_rows(&output->solver, true);
}
