/* Output writer (src/io/output.c): CSV values round-trip exactly, rows come at
 * the requested interval, the PVD indexes list every snapshot and every VTU
 * file is well-formed XML whose arrays hold as many values as its points and
 * cells need. The world is built through the public API only. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "support/file.h"
#include "support/laws.h"

/* ---------------------------------------------------------------- files */

/* ---------------------------------------------------------------- CSV reading */

#define MAX_FIELDS 64

typedef struct csv_row {
    char* field[MAX_FIELDS];
    int count;
} csv_row;

typedef struct csv_table {
    char* text;
    char* units;             /* the "# units: ..." line, without the prefix */
    csv_row header;
    csv_row* rows;
    int row_count;
} csv_table;

/* Splits one line (in place) at commas, honouring RFC 4180 quotes. Returns
 * the start of the next line. */
static char* split_line(char* line, csv_row* row)
{
    row->count = 0;
    char* read = line;
    char* write = line;
    for (;;) {
        cr_assert_lt(row->count, MAX_FIELDS);
        row->field[row->count++] = write;
        if (*read == '"') {
            ++read;
            for (;;) {
                cr_assert_neq(*read, '\0', "unterminated quoted field");
                if (*read == '"' && read[1] == '"') {
                    *write++ = '"';
                    read += 2;
                } else if (*read == '"') {
                    ++read;
                    break;
                } else {
                    *write++ = *read++;
                }
            }
        }
        while (*read != ',' && *read != '\n' && *read != '\0') {
            *write++ = *read++;
        }
        char end = *read;
        *write = '\0';
        if (end == ',') {
            write = ++read;
            continue;
        }
        return end == '\n' ? read + 1 : read;
    }
}

static csv_table read_csv(const char* path)
{
    csv_table table = {0};
    table.text = read_all(path, NULL);
    char* line = table.text;
    cr_assert_eq(strncmp(line, "# units: ", 9), 0, "%s: first line is not '# units: ...'", path);
    table.units = line + 9;
    char* newline = strchr(line, '\n');
    cr_assert_not_null(newline);
    *newline = '\0';
    line = split_line(newline + 1, &table.header);
    int capacity = 16;
    table.rows = malloc((size_t)capacity * sizeof *table.rows);
    while (*line) {
        if (table.row_count == capacity) {
            capacity *= 2;
            table.rows = realloc(table.rows, (size_t)capacity * sizeof *table.rows);
        }
        line = split_line(line, &table.rows[table.row_count]);
        cr_assert_eq(table.rows[table.row_count].count, table.header.count, "%s: row %d has %d fields, header %d",
                     path, table.row_count, table.rows[table.row_count].count, table.header.count);
        ++table.row_count;
    }
    return table;
}

static void free_csv(csv_table* table)
{
    free(table->text);
    free(table->rows);
}

static int column(const csv_table* table, const char* name)
{
    for (int i = 0; i < table->header.count; ++i) {
        if (strcmp(table->header.field[i], name) == 0) {
            return i;
        }
    }
    cr_assert_fail("no column '%s'", name);
    return -1;
}

static double number(const csv_row* row, int index)
{
    char* end;
    double value = strtod(row->field[index], &end);
    cr_assert_eq(*end, '\0', "'%s' is not a number", row->field[index]);
    return value;
}

/* Bitwise equality, so that -0.0 != 0.0 and a NaN equals a NaN. */
static void assert_same_bits(double written, double expected, const char* what)
{
    cr_assert(memcmp(&written, &expected, sizeof written) == 0 || (isnan(written) && isnan(expected)),
              "%s: read back %.17g, expected %.17g", what, written, expected);
}

/* ---------------------------------------------------------------- XML checks */

static int count_numbers(const char* begin, const char* end)
{
    int count = 0;
    const char* c = begin;
    while (c < end) {
        char* next;
        strtod(c, &next);
        if (next == c) {
            ++c;
            continue;
        }
        ++count;
        c = next;
    }
    return count;
}

/* Bytes per value of a VTK DataArray type. */
static size_t vtk_type_size(const char* tag)
{
    const char* types[] = {"Float64", "Int64", "UInt64", "Int32", "UInt8"};
    const size_t sizes[] = {8, 8, 8, 4, 1};
    for (int k = 0; k < 5; ++k) {
        char attribute[32];
        snprintf(attribute, sizeof attribute, "type=\"%s\"", types[k]);
        const char* at = strstr(tag, attribute);
        if (at && at < strchr(tag, '>')) {
            return sizes[k];
        }
    }
    cr_assert_fail("unknown DataArray type in %.80s", tag);
    return 0;
}

/* Checks a VTU file, ASCII or binary (raw appended data): well-formed XML,
 * and every DataArray holds components x (points for Points/PointData,
 * cells for CellData, the right total for the cell arrays) values; in a
 * binary file each array's byte count, at its offset after the '_' that
 * opens the appended block, is that many values of its type, and the
 * arrays tile the block exactly. Returns the number of points and cells,
 * and (when `binary` is not NULL) whether the file was binary. */
static void check_vtu_format(const char* path, long* points_out, long* cells_out, bool* binary)
{
    FILE* file = fopen(path, "rb");
    cr_assert_not_null(file, "cannot open %s", path);
    fseek(file, 0, SEEK_END);
    size_t size = (size_t)ftell(file);
    fclose(file);
    char* text = read_all(path, NULL);
    const char* appended = check_vtu_xml(text, path, false);
    const unsigned char* data = NULL;
    if (appended) {
        const char raw[] = "<AppendedData encoding=\"raw\">";
        cr_assert_eq(strncmp(appended, raw, strlen(raw)), 0, "%s: appended data not raw", path);
        data = (const unsigned char*)strchr(appended, '_') + 1;
    }
    if (binary) {
        *binary = appended != NULL;
    }
    const char* piece = strstr(text, "<Piece ");
    cr_assert_not_null(piece, "%s: no Piece", path);
    long points = attribute_long(piece, "NumberOfPoints");
    long cells = attribute_long(piece, "NumberOfCells");
    const char* point_data = strstr(text, "<PointData");
    const char* cell_data = strstr(text, "<CellData");
    const char* cells_tag = strstr(text, "<Cells>");
    cr_assert_not_null(cells_tag, "%s: no Cells", path);
    long connectivity_count = -1;
    uint64_t next_offset = 0;
    const char* end = appended ? appended : text + strlen(text);
    for (const char* array = strstr(text, "<DataArray"); array && array < end;
         array = strstr(array + 1, "<DataArray")) {
        const char* open_end = strchr(array, '>');
        long components = attribute_long(array, "NumberOfComponents");
        char name[64] = "";
        const char* name_at = strstr(array, " Name=\"");
        cr_assert(name_at && name_at < open_end, "%s: DataArray without a Name", path);
        sscanf(name_at + 7, "%63[^\"]", name);
        long values;
        if (data) {
            cr_assert(strstr(array, "format=\"appended\"") < open_end, "%s: %s is not appended", path, name);
            uint64_t offset = (uint64_t)attribute_long(array, "offset");
            cr_assert_eq(offset, next_offset, "%s: %s does not start where the previous array ends", path, name);
            cr_assert_leq((size_t)((const char*)data - text) + offset + 8, size, "%s: %s past the end", path, name);
            uint64_t bytes;
            memcpy(&bytes, data + offset, sizeof bytes);
            size_t type_size = vtk_type_size(array);
            cr_assert_eq(bytes % type_size, 0, "%s: %s has %llu bytes", path, name, (unsigned long long)bytes);
            values = (long)(bytes / type_size);
            next_offset = offset + 8 + bytes;
        } else {
            const char* close = strstr(open_end, "</DataArray>");
            cr_assert_not_null(close);
            values = count_numbers(open_end + 1, close);
        }
        long expected;
        if (strcmp(name, "connectivity") == 0) {
            connectivity_count = values;
            expected = values;
        } else if (strcmp(name, "offsets") == 0 || strcmp(name, "types") == 0) {
            expected = cells;
        } else if (cell_data && array > cell_data) {
            expected = components * cells;
        } else if (point_data && array > point_data) {
            expected = components * points;
        } else {
            cr_assert_str_eq(name, "Points", "%s: unexpected array %s", path, name);
            expected = 3 * points;
        }
        cr_assert_eq(values, expected, "%s: array %s has %ld values, expected %ld", path, name, values, expected);
    }
    if (data) {
        /* The block ends with the last array, then the closing tags. */
        const char* after = (const char*)data + next_offset;
        cr_assert_leq((size_t)(after - text), size);
        const char* closing = "\n  </AppendedData>\n</VTKFile>\n";
        cr_assert(strncmp(after, closing, strlen(closing)) == 0, "%s: bad end of the appended block", path);
    }
    cr_assert_geq(connectivity_count, cells, "%s: connectivity shorter than the cell count", path);
    free(text);
    *points_out = points;
    *cells_out = cells;
}

/* ---------------------------------------------------------------- the world */

#define STEPS 23
#define DT 1e-3

typedef struct recorded {
    double time;
    int body_count;
    fd_body_id dynamic[4];
    fd_body_state state[4];
    double radius[4], mass[4];
    char material[4][64];
    int contact_count;
    fd_contact_view contact[8];
    double columns[8][8];    /* copies: a view's columns pointer lives only until the next step */
    fd_world_energy energy;
} recorded;

/* A free sphere of the material at a position, with its velocity and spin. */
static void add_sphere(fd_world* world, fd_material_id material, const char* name, double radius, fd_vec3 position,
                       fd_vec3 velocity, fd_vec3 angular_velocity)
{
    fd_body_def def = fd_default_body_def();
    def.name = name;
    def.material = material;
    def.shape.type = FD_SHAPE_SPHERE;
    def.shape.radius = radius;
    def.position = position;
    def.velocity = velocity;
    def.angular_velocity = angular_velocity;
    test_create_body(world, &def);
}

static fd_world* make_world(void)
{
    fd_world_def world_def = fd_default_world_def();
    world_def.time_step = DT;
    world_def.gravity = (fd_vec3){0.1, -0.2, -9.81};
    fd_world* world = test_create_world(&world_def);

    fd_material_id material = test_add_solid_material(world, "grain", 2500.0, 0.0);
    fd_contact_law_def law = test_normal_law("hooke", "k_n", 1e5);
    test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "restitution", 0.5);
    test_set_law(world, material, &law);

    test_add_ground(world, material); /* the plane z = 0, normal +z */

    /* Resting on the ground with a small overlap: a contact from the first step. */
    add_sphere(world, material, "ball, \"one\"", 0.01, (fd_vec3){0.0, 0.0, 0.0099}, (fd_vec3){0.1, 0.0, 0.0},
               (fd_vec3){0.0, 1.0 / 3.0, 0.0});

    /* In free flight, with values that need all 17 digits. */
    add_sphere(world, material, "flyer", 0.02, (fd_vec3){1.0 / 3.0, -2.0 / 7.0, 1.0 + 1e-13}, (fd_vec3){0.1, 0.2, 0.3},
               (fd_vec3){1e-300, -3.0, 3.141592653589793});

    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    return world;
}

static void record(const fd_world* world, recorded* r)
{
    r->time = fd_world_time(world);
    r->body_count = 0;
    for (int i = 0; i < fd_world_body_count(world); ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (fd_body_get_info(world, id).type == FD_BODY_DYNAMIC) {
            r->dynamic[r->body_count] = id;
            r->state[r->body_count] = fd_body_get_state(world, id);
            fd_body_info info = fd_body_get_info(world, id);
            r->radius[r->body_count] = info.shape.radius;
            r->mass[r->body_count] = info.mass;
            snprintf(r->material[r->body_count], sizeof r->material[0], "%s", fd_material_name(world, info.material));
            ++r->body_count;
        }
    }
    r->contact_count = fd_world_contact_count(world);
    cr_assert_leq(r->contact_count, 8);
    for (int k = 0; k < r->contact_count; ++k) {
        cr_assert_eq(fd_world_get_contact(world, k, &r->contact[k]), FD_OK);
        cr_assert_leq(r->contact[k].column_count, 8);
        for (int m = 0; m < r->contact[k].column_count; ++m) {
            r->columns[k][m] = r->contact[k].columns[m];
        }
        r->contact[k].columns = r->columns[k];
    }
    r->energy = fd_world_get_energy(world);
}

/* Runs STEPS steps with the given settings, recording the world at every step. */
static void run(fd_output_settings* settings, recorded history[STEPS + 1])
{
    fd_world* world = make_world();
    fd_output* output = fd_output_open(world, settings);
    cr_assert_not_null(output, "%s", fd_last_error());
    record(world, &history[0]);
    cr_assert_eq(fd_output_write(output, world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_output_write(output, world), FD_OK, "a second write at the same step writes nothing");
    for (int n = 1; n <= STEPS; ++n) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        record(world, &history[n]);
        cr_assert_eq(fd_output_write(output, world), FD_OK, "%s", fd_last_error());
    }
    cr_assert_eq(fd_output_close(output, world), FD_OK, "%s", fd_last_error());
    fd_world_free(world);
}

static fd_output_settings settings_in(const char* directory)
{
    fd_output_settings settings = {0};
    snprintf(settings.directory, sizeof settings.directory, "%s", directory);
    settings.csv_interval = 5e-3;
    settings.bodies_csv = true;
    settings.contacts_csv = true;
    settings.energy_csv = true;
    settings.vtu_interval = 1e-2;
    return settings;
}

/* The steps at which rows are expected, given the interval in steps (0 = every
 * step): step 0, every multiple, and the last step. */
static int expected_steps(int every, int steps[STEPS + 1])
{
    int count = 0;
    for (int n = 0; n <= STEPS; ++n) {
        if (n == 0 || n == STEPS || every == 0 || n % every == 0) {
            steps[count++] = n;
        }
    }
    return count;
}

/* ---------------------------------------------------------------- tests */

Test(output, bodies_csv_round_trips_at_the_interval)
{
    char temp[64];
    make_temp_dir(temp, sizeof temp);
    char directory[256];
    snprintf(directory, sizeof directory, "%s/nested/run", temp); /* exercises mkdir -p */
    fd_output_settings settings = settings_in(directory);
    static recorded history[STEPS + 1];
    run(&settings, history);

    csv_table table = read_csv(path_in(directory, "bodies.csv"));
    const char* names[] = {"time", "step", "body", "name", "x", "y", "z", "qw", "qx", "qy", "qz",
                           "vx", "vy", "vz", "wx", "wy", "wz", "radius", "mass", "material"};
    cr_assert_eq(table.header.count, 20);
    for (int i = 0; i < 20; ++i) {
        cr_assert_str_eq(table.header.field[i], names[i]);
    }
    cr_assert_str_eq(table.units, "s,-,-,-,m,m,m,-,-,-,-,m/s,m/s,m/s,rad/s,rad/s,rad/s,m,kg,-");

    int steps[STEPS + 1];
    int step_count = expected_steps(5, steps);
    cr_assert_eq(table.row_count, 2 * step_count, "2 dynamic bodies x %d output steps", step_count);
    for (int r = 0; r < table.row_count; ++r) {
        const csv_row* row = &table.rows[r];
        int step = (int)number(row, 1);
        cr_assert_eq(step, steps[r / 2], "row %d: step %d, expected %d", r, step, steps[r / 2]);
        const recorded* rec = &history[step];
        int b = r % 2;
        assert_same_bits(number(row, 0), rec->time, "time");
        cr_assert_eq((int)number(row, 2), rec->dynamic[b].index1 - 1);
        cr_assert_str_eq(row->field[3], b == 0 ? "ball, \"one\"" : "flyer");
        const fd_body_state* s = &rec->state[b];
        double expected[13] = {s->position.x,    s->position.y,    s->position.z,         s->orientation.w,
                               s->orientation.x, s->orientation.y, s->orientation.z,      s->velocity.x,
                               s->velocity.y,    s->velocity.z,    s->angular_velocity.x, s->angular_velocity.y,
                               s->angular_velocity.z};
        for (int i = 0; i < 13; ++i) {
            assert_same_bits(number(row, 4 + i), expected[i], names[4 + i]);
        }
        assert_same_bits(number(row, 17), rec->radius[b], "radius");
        assert_same_bits(number(row, 18), rec->mass[b], "mass");
        cr_assert_str_eq(row->field[19], rec->material[b]);
    }
    free_csv(&table);
    remove_tree(temp);
}

Test(output, contacts_and_energy_csv_round_trip)
{
    char directory[64];
    make_temp_dir(directory, sizeof directory);
    fd_output_settings settings = settings_in(directory);
    settings.csv_interval = 0.0; /* every step */
    static recorded history[STEPS + 1];
    run(&settings, history);

    csv_table contacts = read_csv(path_in(directory, "contacts.csv"));
    cr_assert_str_eq(contacts.header.field[0], "time");
    cr_assert_str_eq(contacts.header.field[14], "normal_force");
    cr_assert_str_eq(contacts.header.field[29], "spin_j_z");
    cr_assert_geq(contacts.header.count, 50);
    int expected_rows = 0;
    for (int n = 0; n <= STEPS; ++n) {
        expected_rows += history[n].contact_count;
    }
    cr_assert_gt(expected_rows, 0, "the resting ball should touch the ground");
    cr_assert_eq(contacts.row_count, expected_rows);
    int step_col = column(&contacts, "step"), id_col = column(&contacts, "id");
    int body_i_col = column(&contacts, "body_i"), body_j_col = column(&contacts, "body_j");
    int name_i_col = column(&contacts, "name_i"), name_j_col = column(&contacts, "name_j");
    int px_col = column(&contacts, "px"), pz_col = column(&contacts, "pz"), nz_col = column(&contacts, "nz");
    int penetration_col = column(&contacts, "penetration"), force_col = column(&contacts, "normal_force");
    int fsx_col = column(&contacts, "fsx"), spin_j_z_col = column(&contacts, "spin_j_z");
    int row_index = 0;
    for (int n = 0; n <= STEPS; ++n) {
        for (int k = 0; k < history[n].contact_count; ++k) {
            const csv_row* row = &contacts.rows[row_index++];
            const fd_contact_view* c = &history[n].contact[k];
            cr_assert_eq((int)number(row, step_col), n);
            cr_assert_eq(strtoull(row->field[id_col], NULL, 10), c->id);
            cr_assert_eq((int)number(row, body_i_col), c->body_i.index1 - 1);
            cr_assert_eq((int)number(row, body_j_col), c->body_j.index1 - 1);
            cr_assert_str_eq(row->field[name_i_col], "ground");
            cr_assert_str_eq(row->field[name_j_col], "ball, \"one\"");
            const fd_contact_geometry* g = &c->geometry;
            assert_same_bits(number(row, px_col), 0.5 * (g->point_i.x + g->point_j.x), "px");
            assert_same_bits(number(row, pz_col), 0.5 * (g->point_i.z + g->point_j.z), "pz");
            assert_same_bits(number(row, nz_col), g->normal.z, "nz");
            assert_same_bits(number(row, penetration_col), g->penetration, "penetration");
            assert_same_bits(number(row, force_col), c->loads.normal_force, "normal_force");
            assert_same_bits(number(row, fsx_col), c->loads.slide_force.x, "fsx");
            assert_same_bits(number(row, spin_j_z_col), c->loads.spin_torque_j.z, "spin_j_z");
            /* Model columns follow the fixed ones, NaN where a law lacks one. */
            /* Then the energy books, five per mechanism. */
            for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
                const fd_energy_books* e = &c->energy[m];
                assert_same_bits(number(row, 30 + 5 * m), e->stored, "stored");
                assert_same_bits(number(row, 31 + 5 * m), e->dashpot, "dashpot");
                assert_same_bits(number(row, 32 + 5 * m), e->slip, "slip");
                assert_same_bits(number(row, 33 + 5 * m), e->created, "created");
                assert_same_bits(number(row, 34 + 5 * m), e->work, "work");
            }
            for (int m = 0; m < contacts.header.count - 50; ++m) {
                double expected = m < c->column_count ? c->columns[m] : NAN;
                assert_same_bits(number(row, 50 + m), expected, contacts.header.field[50 + m]);
            }
        }
    }
    free_csv(&contacts);

    csv_table energy = read_csv(path_in(directory, "energy.csv"));
    cr_assert_eq(energy.header.count, 28, "energy.csv has %d columns", energy.header.count);
    cr_assert_eq(energy.row_count, STEPS + 1);
    for (int n = 0; n <= STEPS; ++n) {
        const csv_row* row = &energy.rows[n];
        const fd_world_energy* e = &history[n].energy;
        assert_same_bits(number(row, 0), history[n].time, "time");
        assert_same_bits(number(row, 2), e->kinetic_translational, "kinetic_translational");
        assert_same_bits(number(row, 3), e->kinetic_rotational, "kinetic_rotational");
        assert_same_bits(number(row, 4), e->gravitational, "gravitational");
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            assert_same_bits(number(row, 5 + m), e->stored[m], "stored");
            assert_same_bits(number(row, 9 + m), e->dashpot[m], "dashpot");
            assert_same_bits(number(row, 13 + m), e->slip[m], "slip");
            assert_same_bits(number(row, 17 + m), e->created[m], "created");
        }
        assert_same_bits(number(row, 21), e->released, "released");
        assert_same_bits(number(row, 22), e->external_work, "external_work");
        assert_same_bits(number(row, 23), e->constraint_work, "constraint_work");
        assert_same_bits(number(row, 24), e->inserted, "inserted");
        assert_same_bits(number(row, 25), e->removed, "removed");
        double total = e->kinetic_translational + e->kinetic_rotational + e->gravitational;
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            total += e->stored[m];
        }
        assert_same_bits(number(row, 26), total, "total");
        assert_same_bits(number(row, 27), e->closure_error, "closure_error");
    }
    free_csv(&energy);
    remove_tree(directory);
}

/* The array `name` of a binary VTU file: its doubles, count of them. */
static double* binary_vtu_doubles(const char* path, const char* name, long* count)
{
    FILE* file = fopen(path, "rb");
    cr_assert_not_null(file);
    fseek(file, 0, SEEK_END);
    size_t size = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    char* bytes = malloc(size + 1);
    cr_assert_eq(fread(bytes, 1, size, file), size);
    bytes[size] = '\0';
    fclose(file);
    char key[80];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char* array = strstr(bytes, key);
    cr_assert_not_null(array, "%s: no array %s", path, name);
    cr_assert_not_null(strstr(array, "type=\"Float64\""));
    uint64_t offset = (uint64_t)attribute_long(array, "offset");
    const char* data = strchr(strstr(bytes, "<AppendedData"), '_') + 1;
    uint64_t length;
    memcpy(&length, data + offset, sizeof length);
    double* values = malloc(length);
    memcpy(values, data + offset + 8, length);
    *count = (long)(length / 8);
    free(bytes);
    return values;
}

static void check_snapshots(bool ascii)
{
    char directory[64];
    make_temp_dir(directory, sizeof directory);
    fd_output_settings settings = settings_in(directory);
    settings.vtu_ascii = ascii;
    static recorded history[STEPS + 1];
    run(&settings, history);

    int steps[STEPS + 1];
    int snapshot_count = expected_steps(10, steps); /* 0, 10, 20 and the final 23 */
    cr_assert_eq(snapshot_count, 4);
    const char* kinds[3] = {"bodies", "contacts", "walls"};
    for (int kind = 0; kind < 3; ++kind) {
        char name[32];
        snprintf(name, sizeof name, "%s.pvd", kinds[kind]);
        char* pvd = read_all(path_in(directory, name), NULL);
        check_vtk_xml(pvd, name, false);
        int listed = 0;
        for (const char* d = strstr(pvd, "<DataSet"); d; d = strstr(d + 1, "<DataSet")) {
            cr_assert_lt(listed, snapshot_count, "%s lists too many snapshots", name);
            double timestep = strtod(strstr(d, "timestep=\"") + 10, NULL);
            assert_same_bits(timestep, history[steps[listed]].time, "timestep");
            char file[64];
            cr_assert_eq(sscanf(strstr(d, "file=\"") + 6, "%63[^\"]", file), 1);
            char expected_file[64];
            snprintf(expected_file, sizeof expected_file, "vtu/%s_%06d.vtu", kinds[kind], listed);
            cr_assert_str_eq(file, expected_file);
            cr_assert(file_exists(path_in(directory, file)), "%s is missing", file);
            long points, cells;
            bool binary;
            check_vtu_format(path_in(directory, file), &points, &cells, &binary);
            cr_assert_eq(binary, !ascii, "%s: %s, expected %s", file, binary ? "binary" : "ASCII",
                         ascii ? "ASCII" : "binary");
            const recorded* rec = &history[steps[listed]];
            if (kind == 0 && binary) {
                /* Binary arrays hold the state's exact bits, in body order. */
                const char* arrays[2] = {"Points", "velocity"};
                for (int a = 0; a < 2; ++a) {
                    long count;
                    double* values = binary_vtu_doubles(path_in(directory, file), arrays[a], &count);
                    cr_assert_eq(count, 3 * rec->body_count);
                    for (int b = 0; b < rec->body_count; ++b) {
                        fd_vec3 v = a == 0 ? rec->state[b].position : rec->state[b].velocity;
                        assert_same_bits(values[3 * b], v.x, arrays[a]);
                        assert_same_bits(values[3 * b + 1], v.y, arrays[a]);
                        assert_same_bits(values[3 * b + 2], v.z, arrays[a]);
                    }
                    free(values);
                }
            }
            if (kind == 0) {
                cr_assert_eq(points, 2, "two non-plane bodies");
                cr_assert_eq(cells, 2);
            } else if (kind == 2) {
                cr_assert_eq(cells, 1, "the ground plane, one square");
                cr_assert_eq(points, 4);
            } else {
                cr_assert_eq(cells, rec->contact_count);
                cr_assert_eq(points, 2 * rec->contact_count);
            }
            ++listed;
        }
        cr_assert_eq(listed, snapshot_count, "%s lists %d snapshots, expected %d", name, listed, snapshot_count);
        free(pvd);
    }
    cr_assert(!file_exists(path_in(directory, "bodies.pvd.tmp")));
    remove_tree(directory);
}

Test(output, pvd_lists_every_snapshot_and_binary_vtu_files_parse) { check_snapshots(false); }

Test(output, pvd_lists_every_snapshot_and_ascii_vtu_files_parse) { check_snapshots(true); }

Test(output, disabled_outputs_write_no_files)
{
    char directory[64];
    make_temp_dir(directory, sizeof directory);
    fd_output_settings settings = settings_in(directory);
    settings.bodies_csv = false;
    settings.contacts_csv = false;
    settings.vtu_interval = 0.0;
    static recorded history[STEPS + 1];
    run(&settings, history);
    cr_assert(!file_exists(path_in(directory, "bodies.csv")));
    cr_assert(!file_exists(path_in(directory, "contacts.csv")));
    cr_assert(!file_exists(path_in(directory, "bodies.pvd")));
    cr_assert(file_exists(path_in(directory, "energy.csv")));
    csv_table energy = read_csv(path_in(directory, "energy.csv"));
    int steps[STEPS + 1];
    cr_assert_eq(energy.row_count, expected_steps(5, steps));
    free_csv(&energy);
    remove_tree(directory);
}

Test(output, open_fails_loudly_on_a_bad_directory)
{
    char directory[64];
    make_temp_dir(directory, sizeof directory);
    char* blocker = path_in(directory, "file");
    FILE* file = fopen(blocker, "w");
    cr_assert_not_null(file);
    fclose(file);
    fd_world* world = make_world();
    fd_output_settings settings = settings_in(path_in(directory, "file/below"));
    fd_output* output = fd_output_open(world, &settings);
    cr_assert_null(output);
    cr_assert_neq(fd_last_error()[0], '\0', "a failed open leaves a message");
    settings = settings_in(directory);
    settings.csv_interval = -1.0;
    cr_assert_null(fd_output_open(world, &settings));
    fd_world_free(world);
    remove_tree(directory);
}
