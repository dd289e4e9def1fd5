/* The streaming CSV reader (csv_reader.h says what it accepts and why it is
 * written here). Owns its buffer and file; interprets no field.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include "io/csv_reader.h"

#include <stdlib.h>
#include <string.h>

bool fd_csv_open(fd_csv_reader* r, const char* path)
{
    memset(r, 0, sizeof *r);
    r->file = fopen(path, "rb");
    r->capacity = FD_CSV_BLOCK;
    r->buffer = r->file ? malloc(r->capacity + 1) : NULL;
    r->line = 1;
    if (r->buffer) {
        r->buffer[0] = '\0';
    }
    return r->file && r->buffer;
}

void fd_csv_close(fd_csv_reader* r)
{
    if (r->file) {
        fclose(r->file);
    }
    free(r->buffer);
    memset(r, 0, sizeof *r);
}

/* Moves the unread bytes to the front and reads more (growing the buffer
 * when one record fills it). */
static bool csv_fill(fd_csv_reader* r)
{
    size_t left = r->end - r->begin;
    if (r->begin > 0) {
        memmove(r->buffer, r->buffer + r->begin, left);
    } else if (left == r->capacity) {
        char* grown = realloc(r->buffer, 2 * r->capacity + 1);
        if (!grown) {
            r->error = true;
            return false;
        }
        r->buffer = grown;
        r->capacity *= 2;
    }
    r->begin = 0;
    r->end = left;
    size_t n = fread(r->buffer + r->end, 1, r->capacity - r->end, r->file);
    r->end += n;
    r->buffer[r->end] = '\0';
    if (n == 0) {
        r->eof = true;
        r->error = ferror(r->file) != 0;
    }
    return true;
}
bool fd_csv_next(fd_csv_reader* r, fd_csv_record* out)
{
    for (;;) {
        char* s = r->buffer + r->begin;
        char* e = r->buffer + r->end;
        char* stop = memchr(s, '\n', (size_t)(e - s));
        int breaks = 0;
        bool quoted = false, open = false;
        if (stop && memchr(s, '"', (size_t)(stop - s))) {
            quoted = true; /* a line break inside quotes does not end the record */
            for (stop = s; stop < e; ++stop) {
                if (*stop == '"') {
                    open = !open;
                } else if (*stop == '\n') {
                    if (!open) {
                        break;
                    }
                    ++breaks;
                }
            }
            stop = stop < e ? stop : NULL;
        }
        if (!stop && r->eof) {
            if (s == e) {
                return false;
            }
            if (!quoted) {
                for (const char* c = s; c < e; ++c) {
                    quoted |= *c == '"';
                    open ^= *c == '"';
                    breaks += *c == '\n';
                }
            }
            stop = e; /* the last record has no line break */
        }
        if (stop) {
            *out = (fd_csv_record){s, stop, quoted, open, r->line};
            r->line += 1 + breaks;
            r->begin = (size_t)(stop - r->buffer) + (stop < e);
            if (out->end > s && out->end[-1] == '\r') {
                --out->end;
            }
            return true;
        }
        if (!csv_fill(r) || r->error) {
            return false;
        }
    }
}

int fd_csv_split(const fd_csv_record* record, fd_csv_field* fields, int max)
{
    int count = 0;
    char* p = record->start;
    char* stop = record->end;
    for (;;) {
        char* field_end;
        if (!record->quoted) {
            field_end = memchr(p, ',', (size_t)(stop - p));
            field_end = field_end ? field_end : stop;
        } else {
            bool open = false;
            for (field_end = p; field_end < stop && (open || *field_end != ','); ++field_end) {
                open ^= *field_end == '"';
            }
        }
        if (count == max) {
            return max + 1;
        }
        char* a = p;
        char* b = field_end;
        while (a < b && (*a == ' ' || *a == '\t')) {
            ++a;
        }
        while (b > a && (b[-1] == ' ' || b[-1] == '\t')) {
            --b;
        }
        if (record->quoted && b - a >= 2 && *a == '"' && b[-1] == '"') {
            char* w = a;
            for (char* c = a + 1; c < b - 1; ++c) {
                *w++ = *c;
                if (*c == '"' && c + 1 < b - 1 && c[1] == '"') {
                    ++c;
                }
            }
            b = w;
        }
        bool last = field_end == stop;
        *b = '\0';
        fields[count++] = (fd_csv_field){a, b};
        if (last) {
            return count;
        }
        p = field_end + 1;
    }
}

bool fd_csv_blank(const fd_csv_record* record)
{
    for (const char* c = record->start; c < record->end; ++c) {
        if (*c != ' ' && *c != '\t') {
            return false;
        }
    }
    return true;
}
