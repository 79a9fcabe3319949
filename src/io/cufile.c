/* cufile.c - the cuFile (GPUDirect Storage) backend: libcufile.so.0 loaded with dlopen, used only where GDS runs natively. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "../core/internal.h"
#include "cufile.h"
#include "storage.h"

/*
 * The few cuFile types this needs, as libcufile's public header (cufile.h, CUDA 13) lays them
 * out; the header itself is not part of Debian's CUDA toolkit, and the library is optional at
 * run time, so nothing links against it.
 */
struct tsr_cu_error {
	int err;         /* CUfileOpError: 0 is CU_FILE_SUCCESS, 5000 + n the others */
	int cu_err;      /* CUresult */
};
struct tsr_cu_descr {
	int type;        /* CU_FILE_HANDLE_TYPE_OPAQUE_FD = 1 */
	union {
		int fd;
		void *handle;
	} handle;
	const void *fs_ops;
};
struct tsr_cu_props {
	struct {
		unsigned int major_version, minor_version;
		size_t poll_thresh_size, max_direct_io_size;
		unsigned int dstatusflags, dcontrolflags;
	} nvfs;
	unsigned int fflags, max_device_cache_size, per_buffer_cache_size;
	unsigned int max_device_pinned_mem_size, max_batch_io_size, max_batch_io_timeout_msecs;
};

static struct {
	struct tsr_cu_error (*driver_open)(void);
	struct tsr_cu_error (*get_properties)(struct tsr_cu_props *);
	struct tsr_cu_error (*handle_register)(void **, struct tsr_cu_descr *);
	void (*handle_deregister)(void *);
	ssize_t (*read)(void *, void *, size_t, off_t, off_t);
	int usable;
	char why[256];
} tsr_cf;
static pthread_once_t tsr_cf_once = PTHREAD_ONCE_INIT;
/* cuFile keys its handles by descriptor: one worker's deregister + close racing another's open +
 * register of the same descriptor number failed registrations ("file descriptor is not
 * registered", seen on the H200 machine in compatibility mode), so the pairs take turns. */
static pthread_mutex_t tsr_cf_handles = PTHREAD_MUTEX_INITIALIZER;

static void tsr_cf_init(void)
{
	/* Native GDS needs the nvidia-fs kernel module; without it cuFile runs in compatibility
	 * mode, a POSIX read into its own bounce buffer and a copy, which is no better than the
	 * engine's pinned pread path. Where the module is absent the library is not even loaded:
	 * cuFileDriverOpen costs milliseconds and allocates device memory on every process. */
	struct stat sb;
	int nvfs_module = stat("/sys/module/nvidia_fs", &sb) == 0;
	const char *allow = getenv("TSR_CUFILE_ALLOW_COMPAT");
	int allow_compat = allow && !strcmp(allow, "1");
	if (!nvfs_module && !allow_compat) {
		snprintf(tsr_cf.why, sizeof(tsr_cf.why),
			 "compatibility mode only (no nvidia-fs kernel module)");
		return;
	}
	void *lib = dlopen("libcufile.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(tsr_cf.why, sizeof(tsr_cf.why), "libcufile.so.0 not loadable: %s", dlerror());
		return;
	}
	*(void **)&tsr_cf.driver_open = dlsym(lib, "cuFileDriverOpen");
	*(void **)&tsr_cf.get_properties = dlsym(lib, "cuFileDriverGetProperties");
	*(void **)&tsr_cf.handle_register = dlsym(lib, "cuFileHandleRegister");
	*(void **)&tsr_cf.handle_deregister = dlsym(lib, "cuFileHandleDeregister");
	*(void **)&tsr_cf.read = dlsym(lib, "cuFileRead");
	if (!tsr_cf.driver_open || !tsr_cf.get_properties || !tsr_cf.handle_register ||
	    !tsr_cf.handle_deregister || !tsr_cf.read) {
		snprintf(tsr_cf.why, sizeof(tsr_cf.why), "libcufile.so.0 lacks the cuFile calls");
		return; /* the library stays loaded: unloading a half-initialised one is worse */
	}
	struct tsr_cu_error e = tsr_cf.driver_open();
	if (e.err != 0) {
		snprintf(tsr_cf.why, sizeof(tsr_cf.why), "cuFileDriverOpen failed (cuFile error %d%s)",
			 e.err, e.err == 5001 ? ": the nvidia-fs driver is not loaded" : "");
		return;
	}
	struct tsr_cu_props p;
	memset(&p, 0, sizeof(p));
	e = tsr_cf.get_properties(&p);
	int nvfs = nvfs_module && e.err == 0 && p.nvfs.major_version;
	if (nvfs) {
		tsr_cf.usable = 1;
		snprintf(tsr_cf.why, sizeof(tsr_cf.why), "native (nvidia-fs %u.%u)",
			 p.nvfs.major_version, p.nvfs.minor_version);
	} else if (allow_compat) {
		tsr_cf.usable = 1;
		snprintf(tsr_cf.why, sizeof(tsr_cf.why),
			 "compatibility mode, allowed by TSR_CUFILE_ALLOW_COMPAT=1");
	} else {
		/* (the module is there: the driver does not report it) */
		snprintf(tsr_cf.why, sizeof(tsr_cf.why), "compatibility mode only (the cuFile "
			 "driver reports no nvidia-fs: cuFile error %d)", e.err);
	}
}

int tsr_cufile_usable(char *why, size_t cap)
{
	pthread_once(&tsr_cf_once, tsr_cf_init);
	if (why && cap)
		snprintf(why, cap, "%s", tsr_cf.why);
	return tsr_cf.usable;
}

int tsr_cufile_open(const char *path, struct tsr_cufile_file *f)
{
	f->fd = -1;
	f->handle = NULL;
	snprintf(f->path, sizeof(f->path), "%s", path);
	if (!tsr_cufile_usable(NULL, 0))
		return tsr_error(TSR_E_UNSUPPORTED, "%s: cuFile: %s", path, tsr_cf.why);
	pthread_mutex_lock(&tsr_cf_handles);
	/* O_NONBLOCK: a FIFO put at the path must not block the open (issue 21, D5); reads of
	 * regular files ignore the flag */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT | O_NONBLOCK);
	if (fd < 0 && errno == EINVAL) /* a file system without O_DIRECT (tmpfs) */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat sb;
	if (fd >= 0 && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) {
		close(fd);
		pthread_mutex_unlock(&tsr_cf_handles);
		return tsr_error(TSR_E_IO, "%s: not a regular file", path);
	}
	if (fd < 0) {
		int e = errno;
		pthread_mutex_unlock(&tsr_cf_handles);
		return tsr_error(TSR_E_IO, "%s: %s", path, strerror(e));
	}
	struct tsr_cu_descr d;
	memset(&d, 0, sizeof(d));
	d.type = 1;
	d.handle.fd = fd;
	struct tsr_cu_error e = tsr_cf.handle_register(&f->handle, &d);
	if (e.err != 0)
		close(fd);
	pthread_mutex_unlock(&tsr_cf_handles);
	if (e.err != 0) {
		f->handle = NULL;
		return tsr_error(TSR_E_IO, "%s: cuFileHandleRegister failed (cuFile error %d)", path,
				 e.err);
	}
	f->fd = fd;
	return TSR_OK;
}

int tsr_cufile_read(struct tsr_cufile_file *f, void *dev_base, size_t dev_offset, size_t nbytes,
		    uint64_t offset)
{
	size_t done = 0;
	while (done < nbytes) {
		ssize_t n = tsr_cf.read(f->handle, dev_base, nbytes - done, (off_t)(offset + done),
					(off_t)(dev_offset + done));
		if (n < 0)
			return tsr_error(TSR_E_IO, "%s: cuFileRead of %zu bytes at %llu failed (%zd)",
					 f->path, nbytes - done, (unsigned long long)(offset + done), n);
		if (n == 0)
			return tsr_error(TSR_E_IO, "%s: file ends at %llu, %zu bytes short", f->path,
					 (unsigned long long)(offset + done), nbytes - done);
		done += (size_t)n;
	}
	return TSR_OK;
}

void tsr_cufile_close(struct tsr_cufile_file *f)
{
	pthread_mutex_lock(&tsr_cf_handles);
	if (f->handle)
		tsr_cf.handle_deregister(f->handle);
	if (f->fd >= 0)
		close(f->fd);
	pthread_mutex_unlock(&tsr_cf_handles);
	f->handle = NULL;
	f->fd = -1;
	f->path[0] = '\0';
}

/* ---- the backend (storage.h): chunks and files read straight into device memory ---- */

static int tsr_cufile_source_path(struct tsr_source *src, const char *path)
{
	if (src->cf.fd >= 0 && strcmp(src->cf.path, path) == 0)
		return TSR_OK;
	tsr_cufile_close(&src->cf);
	return tsr_cufile_open(path, &src->cf);
}

static int tsr_cufile_source_open(struct tsr_source *src, int64_t chunk, struct tsr_chunk_ref *ref)
{
	(void)chunk;
	src->base = ref->offset;
	return tsr_cufile_source_path(src, ref->path[0] ? ref->path : src->array->path);
}

static int tsr_cufile_open_path(struct tsr_source *src, const char *path)
{
	src->base = 0;
	return tsr_cufile_source_path(src, path);
}

static int tsr_cufile_source_read(struct tsr_source *src, int mem, void *dst, size_t at,
				  size_t nbytes, uint64_t offset)
{
	if (mem != TSR_MEM_CUDA)
		return tsr_error(TSR_E_INTERNAL, "cufile storage reads into device memory only");
	return tsr_cufile_read(&src->cf, dst, at, nbytes, src->base + offset);
}

static void tsr_cufile_release(struct tsr_source *src)
{
	(void)src; /* the file stays open for the next chunk of it */
}

static void tsr_cufile_source_close(struct tsr_source *src)
{
	tsr_cufile_close(&src->cf);
}

const struct tsr_backend tsr_storage_cufile = {
	.name = "cufile",
	.mems = TSR_MEMBIT(TSR_MEM_CUDA),
	.chunk_ref = tsr_storage_file_chunk_ref,
	.chunk_next = tsr_storage_file_chunk_next,
	.open = tsr_cufile_source_open,
	.open_path = tsr_cufile_open_path,
	.read = tsr_cufile_source_read,
	.release = tsr_cufile_release,
	.close = tsr_cufile_source_close,
	.host = &tsr_storage_posix, /* (chunks the CPU decodes) */
};
