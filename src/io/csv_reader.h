/* A CSV reader that streams a file block by block and keeps each record's
 * line (src/io/csv_reader.c): RFC 4180 quoting ("" for a quote, line breaks
 * inside quotes), LF or CRLF, fields trimmed of blanks and unquoted in place.
 * It reads; what a field means is its caller's (scene_bodies_file.c).
 *
 * Written here rather than taken from a library (libcsv) because an error
 * must name its exact line, also past quoted fields that hold line breaks
 * (libcsv reports fields and records, not lines), and a field is parsed
 * where it lies in the buffer, with no copy per field.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_CSV_READER_H
#define FD_IO_CSV_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
    FD_CSV_BLOCK = 1 << 20,   /* bytes read at a time (more only for a longer record) */
    FD_CSV_MAX_FIELDS = 64,   /* the most fields a caller splits a record into */
};

typedef struct fd_csv_reader {
    FILE* file;
    char* buffer; /* capacity + 1 bytes: a NUL always follows the data */
    size_t capacity, begin, end;
    bool eof, error;
    long long line; /* line of the next record */
} fd_csv_reader;

typedef struct fd_csv_record {
    char* start;
    char* end; /* the line break (or the end of the data); a CR before it is excluded */
    bool quoted;
    bool unterminated; /* a quote still open at the end of the file */
    long long line;
} fd_csv_record;

typedef struct fd_csv_field {
    char* start;
    char* end;
} fd_csv_field;

/* Opens path; false when it cannot be read or out of memory (close it anyway). */
bool fd_csv_open(fd_csv_reader* r, const char* path);
void fd_csv_close(fd_csv_reader* r);
/* The next record; false at the end of the file or on a read error. */
bool fd_csv_next(fd_csv_reader* r, fd_csv_record* out);
/* Splits a record into fields (at most max), trimmed of blanks and unquoted
 * in place; the byte after each field's end is made a NUL. Returns the
 * number of fields (max + 1 when there are more). */
int fd_csv_split(const fd_csv_record* record, fd_csv_field* fields, int max);
/* Whether the record holds nothing but blanks. */
bool fd_csv_blank(const fd_csv_record* record);

#endif
