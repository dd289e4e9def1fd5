/* XDMF 2 indexes (output_xdmf.h) of the trajectory's HDF5 datasets.
 *
 * What ParaView 5.11's XDMF Reader (VTK's vtkXdmfReader over Xdmf 2) needs,
 * checked with it: a Polyvertex topology without a connectivity array
 * (NumberOfElements points, one per cell, numbered in order), NumberType and
 * Precision on the HyperSlab item as well as on the HDF item (else the
 * values arrive as 32-bit floats), and HDF Dimensions at least as large as
 * the selection (the reader selects the hyperslab in the file's own extent,
 * so an index written before the datasets grew still reads). A frame with
 * no rows is a grid of 0 points whose hyperslabs select nothing: the reader
 * gives an empty grid (and prints "Alloc :: Invalid argument" to stdout);
 * a grid without geometry, or an empty spatial collection, would crash it
 * or change the output's type.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include "io/output_xdmf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

static void text(fd_text* x, const char* s) { fd_text_append(x, s, strlen(s)); }

/* Text for an XML attribute value or character data. */
static void text_escaped(fd_text* x, const char* s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&': text(x, "&amp;"); break;
        case '<': text(x, "&lt;"); break;
        case '>': text(x, "&gt;"); break;
        case '"': text(x, "&quot;"); break;
        default: fd_text_char(x, *s);
        }
    }
}

static void text_number(fd_text* x, fd_xdmf_number number)
{
    text(x, number == FD_XDMF_FLOAT64 ? "NumberType=\"Float\" Precision=\"8\""
            : number == FD_XDMF_INT32 ? "NumberType=\"Int\" Precision=\"4\""
                                      : "NumberType=\"Int\" Precision=\"8\"");
}

/* The n rows of `frame` of an array: a HyperSlab (start, stride, count) of
 * the whole dataset. */
static void text_slab(fd_text* x, const fd_xdmf_index* index, const fd_xdmf_array* a, int64_t frame, int64_t n)
{
    const int rank = a->components ? 3 : 2;
    const bool whole = a->components && a->component < 0;
    text(x, "<DataItem ItemType=\"HyperSlab\" Dimensions=\"");
    fd_text_integer(x, n);
    if (whole) {
        fd_text_char(x, ' ');
        fd_text_integer(x, a->components);
    }
    text(x, "\" ");
    text_number(x, a->number);
    text(x, "><DataItem Dimensions=\"3 ");
    fd_text_integer(x, rank);
    text(x, "\" Format=\"XML\">");
    const int64_t start[3] = {frame, 0, a->component > 0 ? a->component : 0}, stride[3] = {1, 1, 1};
    const int64_t count[3] = {1, n, whole ? a->components : 1};
    const int64_t* lines[3] = {start, stride, count};
    for (int line = 0; line < 3; ++line) {
        for (int k = 0; k < rank; ++k) {
            if (line || k) {
                fd_text_char(x, ' ');
            }
            fd_text_integer(x, lines[line][k]);
        }
    }
    text(x, "</DataItem><DataItem Dimensions=\"");
    fd_text_integer(x, index->frames);
    fd_text_char(x, ' ');
    fd_text_integer(x, index->rows);
    if (a->components) {
        fd_text_char(x, ' ');
        fd_text_integer(x, a->components);
    }
    text(x, "\" ");
    text_number(x, a->number);
    text(x, " Format=\"HDF\">");
    text_escaped(x, index->h5_name);
    fd_text_char(x, ':');
    text_escaped(x, a->path);
    text(x, "</DataItem></DataItem>");
}

static void text_index(fd_text* x, const fd_xdmf_index* index)
{
    text(x, "<?xml version=\"1.0\" ?>\n"
            "<!-- fricdem trajectory index (docs/output-format.md): open it with ParaView's \"XDMF Reader\"; "
            "the data are the H5MD datasets of ");
    text_escaped(x, index->h5_name);
    text(x, " -->\n<Xdmf Version=\"2.0\">\n  <Domain>\n    <Grid Name=\"");
    text_escaped(x, index->collection);
    text(x, "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (int64_t f = 0; f < index->frames; ++f) {
        const int64_t n = index->counts[f];
        char number[24];
        snprintf(number, sizeof number, "_%06lld", (long long)f);
        text(x, "    <Grid Name=\"");
        text_escaped(x, index->collection);
        text(x, number);
        text(x, "\" GridType=\"Uniform\">\n      <Time Value=\"");
        fd_text_g17(x, index->times[f]);
        text(x, "\"/>\n      <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"");
        fd_text_integer(x, n);
        text(x, "\" NodesPerElement=\"1\"/>\n      <Geometry GeometryType=\"XYZ\">");
        text_slab(x, index, &index->arrays[0], f, n);
        text(x, "</Geometry>\n");
        for (int a = 1; a < index->array_count; ++a) {
            text(x, "      <Attribute Name=\"");
            text_escaped(x, index->arrays[a].name);
            text(x, "\" AttributeType=\"");
            text(x, index->arrays[a].type);
            text(x, "\" Center=\"Node\">");
            text_slab(x, index, &index->arrays[a], f, n);
            text(x, "</Attribute>\n");
        }
        text(x, "    </Grid>\n");
    }
    text(x, "    </Grid>\n  </Domain>\n</Xdmf>\n");
}

fd_status fd_xdmf_write_index(const fd_xdmf_index* index, fd_text* x, int64_t* bytes)
{
    size_t length = strlen(index->path);
    char* temporary = malloc(length + 5);
    if (!temporary) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
    }
    snprintf(temporary, length + 5, "%s.tmp", index->path);
    x->length = 0;
    text_index(x, index);
    *bytes = (int64_t)x->length;
    fd_status status = FD_OK;
    int descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (descriptor < 0) {
        status = fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", temporary, strerror(errno));
    } else {
        bool written = fd_text_write(x, descriptor);
        bool closed = close(descriptor) == 0;
        if (!written || !closed) {
            status = x->failed ? fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory writing '%s'", temporary)
                               : fd_fail(FD_ERR_IO, "output: writing '%s' failed: %s", temporary, strerror(errno));
        } else if (rename(temporary, index->path) != 0) {
            status = fd_fail(FD_ERR_IO, "output: cannot rename '%s' to '%s': %s", temporary, index->path,
                             strerror(errno));
        }
    }
    x->length = 0;
    free(temporary);
    return status;
}
