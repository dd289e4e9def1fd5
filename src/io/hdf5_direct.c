/* HDF5 file driver: POSIX I/O, large aligned writes past the page cache
 * (hdf5_direct.h says why and what it guarantees). Written against the
 * HDF5 1.10 driver interface (H5FDpublic.h's H5FD_class_t, by member name);
 * HDF5 1.13 and later changed that interface, and there the trajectory keeps
 * HDF5's default driver.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#define _GNU_SOURCE /* O_DIRECT */
#include "io/hdf5_direct.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/block_file.h"

static atomic_llong direct_total, cached_total;

void fd_hdf5_direct_counts(int64_t* direct_bytes, int64_t* cached_bytes)
{
    *direct_bytes = (int64_t)atomic_load(&direct_total);
    *cached_bytes = (int64_t)atomic_load(&cached_total);
}

#if H5_VERSION_GE(1, 10, 0) && !H5_VERSION_GE(1, 13, 0) && defined(O_DIRECT)

/* Aligned writes smaller than this take the page cache (a chunk of 64
 * KiB is the smallest the trajectory aligns). */
enum { DIRECT_MIN_BYTES = 64 * 1024 };

/* The driver's part of a file access property list (HDF5 copies it). */
typedef struct direct_config {
    fd_direct_io mode;
    fd_write_rates* rates;
} direct_config;

typedef struct direct_file {
    H5FD_t public_part; /* HDF5's part: must come first */
    int descriptor;     /* every read, and the writes that are not aligned */
    int direct;         /* O_DIRECT, for aligned writes; -1 when the file system refuses it */
    haddr_t end_of_address; /* what HDF5 has allocated */
    haddr_t end_of_file;    /* the file's size */
    dev_t device;
    ino_t inode;
    direct_config config;
} direct_file;

static hid_t driver_id = -1;

static H5FD_t* direct_open(const char* name, unsigned flags, hid_t access, haddr_t maxaddr)
{
    if (!name || !*name || maxaddr == 0 || maxaddr == HADDR_UNDEF) {
        return NULL;
    }
    int mode = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
    mode |= (flags & H5F_ACC_TRUNC) ? O_TRUNC : 0;
    mode |= (flags & H5F_ACC_CREAT) ? O_CREAT : 0;
    mode |= (flags & H5F_ACC_EXCL) ? O_EXCL : 0;
    int descriptor = open(name, mode | O_CLOEXEC, 0666);
    if (descriptor < 0) {
        return NULL;
    }
    struct stat info;
    direct_file* file = calloc(1, sizeof *file);
    if (!file || fstat(descriptor, &info) != 0) {
        free(file);
        close(descriptor);
        return NULL;
    }
    const direct_config* config = H5Pget_driver_info(access);
    file->config = config ? *config : (direct_config){FD_DIRECT_IO_NEVER, NULL};
    file->descriptor = descriptor;
    file->direct = (flags & H5F_ACC_RDWR) && file->config.mode != FD_DIRECT_IO_NEVER && file->config.rates
                       ? open(name, O_WRONLY | O_DIRECT | O_CLOEXEC)
                       : -1;
    file->end_of_file = (haddr_t)info.st_size;
    file->device = info.st_dev;
    file->inode = info.st_ino;
    return &file->public_part;
}

static herr_t direct_close(H5FD_t* public_part)
{
    direct_file* file = (direct_file*)public_part;
    int failed = close(file->descriptor) != 0;
    if (file->direct >= 0) {
        failed |= close(file->direct) != 0;
    }
    free(file);
    return failed ? -1 : 0;
}

static int direct_compare(const H5FD_t* a, const H5FD_t* b)
{
    const direct_file* x = (const direct_file*)a;
    const direct_file* y = (const direct_file*)b;
    if (x->device != y->device) {
        return x->device < y->device ? -1 : 1;
    }
    return x->inode < y->inode ? -1 : x->inode > y->inode ? 1 : 0;
}

static herr_t direct_query(const H5FD_t* file, unsigned long* flags)
{
    (void)file;
    /* What sec2 lets HDF5 do on top of a POSIX file. */
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE | H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
    return 0;
}

static haddr_t direct_get_eoa(const H5FD_t* public_part, H5FD_mem_t type)
{
    (void)type;
    return ((const direct_file*)public_part)->end_of_address;
}

static herr_t direct_set_eoa(H5FD_t* public_part, H5FD_mem_t type, haddr_t address)
{
    (void)type;
    ((direct_file*)public_part)->end_of_address = address;
    return 0;
}

static haddr_t direct_get_eof(const H5FD_t* public_part, H5FD_mem_t type)
{
    (void)type;
    return ((const direct_file*)public_part)->end_of_file;
}

static herr_t direct_get_handle(H5FD_t* public_part, hid_t access, void** handle)
{
    (void)access;
    *handle = &((direct_file*)public_part)->descriptor;
    return 0;
}

static herr_t direct_read(H5FD_t* public_part, H5FD_mem_t type, hid_t transfer, haddr_t address, size_t size,
                          void* buffer)
{
    (void)type, (void)transfer;
    direct_file* file = (direct_file*)public_part;
    unsigned char* out = buffer;
    while (size > 0) {
        ssize_t got = pread(file->descriptor, out, size, (off_t)address);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            return -1;
        }
        if (got == 0) {
            memset(out, 0, size); /* past the end of the file: zeros, as HDF5 expects */
            break;
        }
        out += got;
        size -= (size_t)got;
        address += (haddr_t)got;
    }
    return 0;
}

static herr_t direct_write(H5FD_t* public_part, H5FD_mem_t type, hid_t transfer, haddr_t address, size_t size,
                           const void* buffer)
{
    (void)type, (void)transfer;
    direct_file* file = (direct_file*)public_part;
    const size_t align = FD_BLOCK_FILE_ALIGN;
    bool aligned = address % align == 0 && size % align == 0 && (uintptr_t)buffer % align == 0;
    bool written = false;
    bool direct = aligned && file->direct >= 0 &&
                  fd_write_rates_choose_direct(file->config.rates, file->config.mode, size, DIRECT_MIN_BYTES);
    double start = fd_write_clock();
    if (direct) {
        written = fd_write_all(file->direct, buffer, size, (int64_t)address);
        if (written) {
            atomic_fetch_add(&direct_total, (long long)size);
            fd_write_rates_record(file->config.rates, true, size, fd_write_clock() - start, DIRECT_MIN_BYTES);
        } else if (errno == EINVAL) {
            close(file->direct); /* the file system took the open, not the write: never again */
            file->direct = -1;
        } else {
            return -1;
        }
    }
    if (!written) {
        if (!fd_write_all(file->descriptor, buffer, size, (int64_t)address)) {
            return -1;
        }
        atomic_fetch_add(&cached_total, (long long)size);
        if (aligned) {
            fd_write_rates_record(file->config.rates, false, size, fd_write_clock() - start, DIRECT_MIN_BYTES);
        }
    }
    if (address + size > file->end_of_file) {
        file->end_of_file = address + size;
    }
    return 0;
}

static herr_t direct_truncate(H5FD_t* public_part, hid_t transfer, hbool_t closing)
{
    (void)transfer, (void)closing;
    direct_file* file = (direct_file*)public_part;
    if (file->end_of_address != file->end_of_file) {
        if (ftruncate(file->descriptor, (off_t)file->end_of_address) != 0) {
            return -1;
        }
        file->end_of_file = file->end_of_address;
    }
    return 0;
}

static herr_t direct_lock(H5FD_t* public_part, hbool_t read_write)
{
    direct_file* file = (direct_file*)public_part;
    if (flock(file->descriptor, (read_write ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
        return errno == ENOSYS ? 0 : -1; /* a file system without locks: as HDF5's own driver, carry on */
    }
    return 0;
}

static herr_t direct_unlock(H5FD_t* public_part)
{
    direct_file* file = (direct_file*)public_part;
    if (flock(file->descriptor, LOCK_UN) != 0) {
        return errno == ENOSYS ? 0 : -1;
    }
    return 0;
}

static const H5FD_class_t direct_class = {
    .name = "fricdem_direct",
    .maxaddr = (haddr_t)INT64_MAX,
    .fc_degree = H5F_CLOSE_WEAK,
    .fapl_size = sizeof(direct_config),
    .open = direct_open,
    .close = direct_close,
    .cmp = direct_compare,
    .query = direct_query,
    .get_eoa = direct_get_eoa,
    .set_eoa = direct_set_eoa,
    .get_eof = direct_get_eof,
    .get_handle = direct_get_handle,
    .read = direct_read,
    .write = direct_write,
    .truncate = direct_truncate,
    .lock = direct_lock,
    .unlock = direct_unlock,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

bool fd_hdf5_direct_use(hid_t access, hsize_t threshold, fd_direct_io mode, fd_write_rates* rates)
{
    /* Registered once per process (HDF5 keeps the class for its lifetime);
     * the outputs are opened from one thread. */
    if (driver_id < 0) {
        driver_id = H5FDregister(&direct_class);
    }
    const direct_config config = {mode, rates};
    return driver_id >= 0 && rates && H5Pset_alignment(access, threshold, FD_BLOCK_FILE_ALIGN) >= 0 &&
           H5Pset_driver(access, driver_id, &config) >= 0;
}

#else

bool fd_hdf5_direct_use(hid_t access, hsize_t threshold, fd_direct_io mode, fd_write_rates* rates)
{
    (void)access, (void)threshold, (void)mode, (void)rates;
    return false;
}

#endif
