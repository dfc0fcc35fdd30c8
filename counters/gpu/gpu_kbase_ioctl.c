/* The Mali kbase I/O layer (gpu_kbase.h, struct pp_kbase_io): ioctls and mmap on /dev/mali0
 * and on the counter readers' file descriptors, nothing else. Everything above it runs in
 * tests against recorded streams instead (tests/counters/test_kbase_replay.c). Not run on
 * Mali hardware yet (docs/counters.md). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu_kbase.h"

struct kbase_fd {
	int dev, reader;
	void *map;
	size_t map_size;
	uint32_t dump_size;
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static int io_version(void *ctx, struct pp_kbase_version_check *v, bool *csf)
{
	struct kbase_fd *f = ctx;
	struct pp_kbase_version_check jm = { 0 }, cs = { 0 };
	int r = xioctl(f->dev, PP_KBASE_IOCTL_VERSION_CHECK_JM, &jm);
	*csf = r < 0;
	if (r < 0 && (r = xioctl(f->dev, PP_KBASE_IOCTL_VERSION_CHECK_CSF, &cs)) < 0)
		return r;
	*v = *csf ? cs : jm;
	struct pp_kbase_set_flags flags = { 0 };
	r = xioctl(f->dev, PP_KBASE_IOCTL_SET_FLAGS, &flags);
	return r < 0 ? r : 0;
}

static int io_props(void *ctx, void *buf, uint32_t *size)
{
	struct kbase_fd *f = ctx;
	struct pp_kbase_get_gpuprops p = { .buffer = (uint64_t)(uintptr_t)buf, .size = *size };
	int r = xioctl(f->dev, PP_KBASE_IOCTL_GET_GPUPROPS, &p);
	if (r < 0)
		return r;
	*size = (uint32_t)r;
	return 0;
}

static int io_legacy_setup(void *ctx, const struct pp_kbase_hwcnt_reader_setup *s, uint32_t *dump_size)
{
	struct kbase_fd *f = ctx;
	struct pp_kbase_hwcnt_reader_setup copy = *s;
	int fd = xioctl(f->dev, PP_KBASE_IOCTL_HWCNT_READER_SETUP, &copy);
	if (fd < 0)
		return fd;
	f->reader = fd;
	int r = xioctl(fd, PP_KBASE_HWCNT_READER_GET_BUFFER_SIZE, &f->dump_size);
	if (r < 0)
		return r;
	f->map_size = (size_t)f->dump_size * s->buffer_count;
	f->map = mmap(NULL, f->map_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		return -errno;
	}
	*dump_size = f->dump_size;
	return 0;
}

static int io_legacy_dump(void *ctx)
{
	struct kbase_fd *f = ctx;
	return xioctl(f->reader, PP_KBASE_HWCNT_READER_DUMP, NULL) < 0 ? -EIO : 0;
}

static int io_wait(void *ctx, int timeout_ms)
{
	struct kbase_fd *f = ctx;
	struct pollfd p = { .fd = f->reader, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);
	return r < 0 ? -errno : r > 0 && (p.revents & POLLIN);
}

static int io_legacy_get(void *ctx, struct pp_kbase_hwcnt_reader_metadata *md, const void **dump)
{
	struct kbase_fd *f = ctx;
	int r = xioctl(f->reader, PP_KBASE_HWCNT_READER_GET_BUFFER_WITH_CYCLES, md);
	if (r < 0)
		return r;
	if ((size_t)(md->buffer_idx + 1) * f->dump_size > f->map_size)
		return -EINVAL;
	*dump = (const uint8_t *)f->map + (size_t)md->buffer_idx * f->dump_size;
	return 0;
}

static int io_legacy_put(void *ctx, const struct pp_kbase_hwcnt_reader_metadata *md)
{
	struct kbase_fd *f = ctx;
	struct pp_kbase_hwcnt_reader_metadata copy = *md;
	int r = xioctl(f->reader, PP_KBASE_HWCNT_READER_PUT_BUFFER_WITH_CYCLES, &copy);
	return r < 0 ? r : 0;
}

static int io_kinstr_enum(void *ctx, struct pp_prfcnt_enum_item *items, uint32_t *count)
{
	struct kbase_fd *f = ctx;
	struct pp_kbase_kinstr_enum_info info = { 0 };
	int r = xioctl(f->dev, PP_KBASE_IOCTL_KINSTR_PRFCNT_ENUM_INFO, &info);
	if (r < 0)
		return r;
	if (info.info_item_size != sizeof(*items) || info.info_item_count > *count)
		return -ENOSPC;
	info.info_list_ptr = (uint64_t)(uintptr_t)items;
	r = xioctl(f->dev, PP_KBASE_IOCTL_KINSTR_PRFCNT_ENUM_INFO, &info);
	if (r < 0)
		return r;
	*count = info.info_item_count;
	return 0;
}

static int io_kinstr_setup(void *ctx, const struct pp_prfcnt_request_item *req, uint32_t n, const void **mapping,
			   uint32_t *size)
{
	struct kbase_fd *f = ctx;
	union pp_kbase_kinstr_setup s = { .in = { n, sizeof(*req), (uint64_t)(uintptr_t)req } };
	int fd = xioctl(f->dev, PP_KBASE_IOCTL_KINSTR_PRFCNT_SETUP, &s);
	if (fd < 0)
		return fd;
	f->reader = fd;
	f->map_size = s.out.prfcnt_mmap_size_bytes;
	f->map = mmap(NULL, f->map_size, PROT_READ, MAP_SHARED, fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		return -errno;
	}
	*mapping = f->map;
	*size = (uint32_t)f->map_size;
	return 0;
}

static int io_kinstr_cmd(void *ctx, uint16_t cmd)
{
	struct kbase_fd *f = ctx;
	struct pp_prfcnt_control_cmd c = { .cmd = cmd };
	int r = xioctl(f->reader, PP_KBASE_IOCTL_KINSTR_PRFCNT_CMD, &c);
	return r < 0 ? r : 0;
}

static int io_kinstr_get(void *ctx, struct pp_prfcnt_sample_access *a)
{
	struct kbase_fd *f = ctx;
	int r = xioctl(f->reader, PP_KBASE_IOCTL_KINSTR_PRFCNT_GET_SAMPLE, a);
	return r < 0 ? r : 0;
}

static int io_kinstr_put(void *ctx, const struct pp_prfcnt_sample_access *a)
{
	struct kbase_fd *f = ctx;
	struct pp_prfcnt_sample_access copy = *a;
	int r = xioctl(f->reader, PP_KBASE_IOCTL_KINSTR_PRFCNT_PUT_SAMPLE, &copy);
	return r < 0 ? r : 0;
}

static void io_close(void *ctx)
{
	struct kbase_fd *f = ctx;
	if (f->map)
		munmap(f->map, f->map_size);
	if (f->reader >= 0)
		close(f->reader);
	close(f->dev);
	free(f);
}

int pp_gpu_kbase_ioctl_io_open(const char *path, struct pp_kbase_io *out)
{
	int dev = open(path, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -errno;
	struct kbase_fd *f = calloc(1, sizeof(*f));
	if (!f) {
		close(dev);
		return -ENOMEM;
	}
	f->dev = dev;
	f->reader = -1;
	*out = (struct pp_kbase_io){
		.ctx = f,
		.version = io_version,
		.props = io_props,
		.legacy_setup = io_legacy_setup,
		.legacy_dump = io_legacy_dump,
		.legacy_wait = io_wait,
		.legacy_get = io_legacy_get,
		.legacy_put = io_legacy_put,
		.kinstr_enum = io_kinstr_enum,
		.kinstr_setup = io_kinstr_setup,
		.kinstr_cmd = io_kinstr_cmd,
		.kinstr_wait = io_wait,
		.kinstr_get = io_kinstr_get,
		.kinstr_put = io_kinstr_put,
		.close = io_close,
	};
	return 0;
}
