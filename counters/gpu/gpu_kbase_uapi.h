#pragma once
/* The Arm Mali kbase kernel interface (/dev/mali0) as passprobe uses it: our own declarations
 * of the structures and ioctl numbers of the kernel's UAPI headers (mali_kbase_ioctl.h,
 * mali_kbase_hwcnt_reader.h), field for field in the kernel's binary layout. The recorded
 * streams of tests/counters/data are in exactly these layouts. */
#include <stdint.h>
#include <sys/ioctl.h>

#define PP_KBASE_IOCTL_TYPE 0x80

struct pp_kbase_version_check {
	uint16_t major, minor;
};
/* Job manager GPUs answer nr 0; command stream frontend (CSF) GPUs nr 52 (0 is refused). */
#define PP_KBASE_IOCTL_VERSION_CHECK_JM _IOWR(PP_KBASE_IOCTL_TYPE, 0, struct pp_kbase_version_check)
#define PP_KBASE_IOCTL_VERSION_CHECK_CSF _IOWR(PP_KBASE_IOCTL_TYPE, 52, struct pp_kbase_version_check)

struct pp_kbase_set_flags {
	uint32_t create_flags;
};
#define PP_KBASE_IOCTL_SET_FLAGS _IOW(PP_KBASE_IOCTL_TYPE, 1, struct pp_kbase_set_flags)

struct pp_kbase_get_gpuprops {
	uint64_t buffer;
	uint32_t size;
	uint32_t flags;
};
#define PP_KBASE_IOCTL_GET_GPUPROPS _IOW(PP_KBASE_IOCTL_TYPE, 3, struct pp_kbase_get_gpuprops)

/* GET_GPUPROPS' blob: entries of a little-endian u32 (key << 2 | size code: 0 u8, 1 u16, 2 u32,
 * 3 u64) and the value. */
#define PP_KBASE_GPUPROP_PRODUCT_ID 1
#define PP_KBASE_GPUPROP_L2_NUM_L2_SLICES 15
#define PP_KBASE_GPUPROP_RAW_SHADER_PRESENT 25
#define PP_KBASE_GPUPROP_RAW_L2_FEATURES 29
#define PP_KBASE_GPUPROP_RAW_GPU_ID 55

/* The legacy hardware counter reader (vinstr): a file descriptor of its own. */
struct pp_kbase_hwcnt_reader_setup {
	uint32_t buffer_count;
	uint32_t fe_bm; /* job manager / front end */
	uint32_t shader_bm;
	uint32_t tiler_bm;
	uint32_t mmu_l2_bm;
};
#define PP_KBASE_IOCTL_HWCNT_READER_SETUP _IOW(PP_KBASE_IOCTL_TYPE, 8, struct pp_kbase_hwcnt_reader_setup)

struct pp_kbase_hwcnt_reader_metadata {
	uint64_t timestamp; /* ns, the kernel's raw monotonic clock */
	uint32_t event_id;
	uint32_t buffer_idx;
	uint64_t cycles_top, cycles_shader_cores; /* with the cycles feature */
};
#define PP_KBASE_HWCNT_READER 0xBE
#define PP_KBASE_HWCNT_READER_GET_HWVER _IOR(PP_KBASE_HWCNT_READER, 0x00, uint32_t)
#define PP_KBASE_HWCNT_READER_GET_BUFFER_SIZE _IOR(PP_KBASE_HWCNT_READER, 0x01, uint32_t)
#define PP_KBASE_HWCNT_READER_DUMP _IOW(PP_KBASE_HWCNT_READER, 0x10, uint32_t)
#define PP_KBASE_HWCNT_READER_GET_BUFFER_WITH_CYCLES \
	_IOR(PP_KBASE_HWCNT_READER, 0x20, struct pp_kbase_hwcnt_reader_metadata)
#define PP_KBASE_HWCNT_READER_PUT_BUFFER_WITH_CYCLES \
	_IOW(PP_KBASE_HWCNT_READER, 0x21, struct pp_kbase_hwcnt_reader_metadata)
#define PP_KBASE_HWCNT_READER_SET_INTERVAL _IOW(PP_KBASE_HWCNT_READER, 0x30, uint32_t)

/* The legacy dump: blocks of 64 u32 counters (the first 4 a header), in the order front end,
 * tiler, one memory block per L2 slice, one shader core block per core of the core mask. */
#define PP_KBASE_LEGACY_BLOCK_COUNTERS 64
#define PP_KBASE_BLOCK_HEADER_COUNTERS 4

/* kinstr_prfcnt (newer drivers): enumeration, a request list, samples as metadata lists in a
 * mapped ring. */
struct pp_kbase_kinstr_enum_info {
	uint32_t info_item_size;
	uint32_t info_item_count;
	uint64_t info_list_ptr;
};
#define PP_KBASE_IOCTL_KINSTR_PRFCNT_ENUM_INFO _IOWR(PP_KBASE_IOCTL_TYPE, 56, struct pp_kbase_kinstr_enum_info)

union pp_kbase_kinstr_setup {
	struct {
		uint32_t request_item_count;
		uint32_t request_item_size;
		uint64_t requests_ptr;
	} in;
	struct {
		uint32_t prfcnt_metadata_item_size;
		uint32_t prfcnt_mmap_size_bytes;
	} out;
};
#define PP_KBASE_IOCTL_KINSTR_PRFCNT_SETUP _IOWR(PP_KBASE_IOCTL_TYPE, 57, union pp_kbase_kinstr_setup)

#define PP_PRFCNT_TYPE(type, subtype) ((uint16_t)((((type)&0xf) << 12) | ((subtype)&0xfff)))
#define PP_PRFCNT_TYPE_NONE PP_PRFCNT_TYPE(0, 0)
#define PP_PRFCNT_ENUM_TYPE_BLOCK PP_PRFCNT_TYPE(0, 0)
#define PP_PRFCNT_ENUM_TYPE_REQUEST PP_PRFCNT_TYPE(0, 1)
#define PP_PRFCNT_ENUM_TYPE_SAMPLE_INFO PP_PRFCNT_TYPE(0, 2)
#define PP_PRFCNT_REQUEST_TYPE_MODE PP_PRFCNT_TYPE(1, 0)
#define PP_PRFCNT_REQUEST_TYPE_ENABLE PP_PRFCNT_TYPE(1, 1)
#define PP_PRFCNT_REQUEST_TYPE_SCOPE PP_PRFCNT_TYPE(1, 2)
#define PP_PRFCNT_SAMPLE_META_TYPE_SAMPLE PP_PRFCNT_TYPE(2, 0)
#define PP_PRFCNT_SAMPLE_META_TYPE_CLOCK PP_PRFCNT_TYPE(2, 1)
#define PP_PRFCNT_SAMPLE_META_TYPE_BLOCK PP_PRFCNT_TYPE(2, 2)

enum pp_prfcnt_block_type {
	PP_PRFCNT_BLOCK_FE = 0,
	PP_PRFCNT_BLOCK_TILER = 1,
	PP_PRFCNT_BLOCK_MEMORY = 2,
	PP_PRFCNT_BLOCK_SHADER_CORE = 3,
	PP_PRFCNT_BLOCK_TYPES = 4,
};

struct pp_prfcnt_item_header {
	uint16_t item_type;
	uint16_t item_version;
};

struct pp_prfcnt_enum_item {
	struct pp_prfcnt_item_header hdr;
	uint8_t padding[4];
	union {
		struct {
			uint8_t block_type;
			uint8_t set;
			uint8_t pad[2];
			uint16_t num_instances;
			uint16_t num_values;
			uint64_t counter_mask[2];
		} block_counter;
		struct {
			uint16_t request_item_type;
			uint16_t pad;
			uint32_t versions_mask;
		} request;
		struct {
			uint32_t num_clock_domains;
			uint32_t pad;
		} sample_info;
	} u;
};

struct pp_prfcnt_request_item {
	struct pp_prfcnt_item_header hdr;
	uint8_t padding[4];
	union {
		struct {
			uint8_t mode; /* 0 manual, 1 periodic */
			uint8_t pad[7];
			uint64_t period_ns;
		} req_mode;
		struct {
			uint8_t block_type;
			uint8_t set;
			uint8_t pad[6];
			uint64_t enable_mask[2];
		} req_enable;
		struct {
			uint8_t scope;
			uint8_t pad[7];
		} req_scope;
	} u;
};

struct pp_prfcnt_metadata {
	struct pp_prfcnt_item_header hdr;
	uint8_t padding[4];
	union {
		struct {
			uint64_t timestamp_start, timestamp_end, seq, user_data;
			uint32_t flags, pad;
		} sample_md;
		struct {
			uint32_t num_domains, pad;
			uint64_t cycles[4];
		} clock_md;
		struct {
			uint8_t block_type, block_idx, set, pad_u8;
			uint32_t block_state;
			uint32_t values_offset; /* from the start of the mapping: u64 values */
			uint32_t pad_u32;
		} block_md;
	} u;
};

struct pp_prfcnt_control_cmd {
	uint16_t cmd; /* 1 start, 2 stop, 3 sample sync, 4 sample async, 5 discard */
	uint16_t pad[3];
	uint64_t user_data;
};

struct pp_prfcnt_sample_access {
	uint64_t sequence;
	uint64_t sample_offset_bytes; /* of the sample's metadata list in the mapping */
};

#define PP_KBASE_KINSTR_PRFCNT_READER 0xBF
#define PP_KBASE_IOCTL_KINSTR_PRFCNT_CMD _IOW(PP_KBASE_KINSTR_PRFCNT_READER, 0x00, struct pp_prfcnt_control_cmd)
#define PP_KBASE_IOCTL_KINSTR_PRFCNT_GET_SAMPLE \
	_IOR(PP_KBASE_KINSTR_PRFCNT_READER, 0x01, struct pp_prfcnt_sample_access)
#define PP_KBASE_IOCTL_KINSTR_PRFCNT_PUT_SAMPLE \
	_IOW(PP_KBASE_KINSTR_PRFCNT_READER, 0x10, struct pp_prfcnt_sample_access)

_Static_assert(sizeof(struct pp_kbase_hwcnt_reader_metadata) == 32, "kernel layout");
_Static_assert(sizeof(struct pp_prfcnt_enum_item) == 32, "kernel layout");
_Static_assert(sizeof(struct pp_prfcnt_request_item) == 32, "kernel layout");
_Static_assert(sizeof(struct pp_prfcnt_metadata) == 48, "kernel layout");
_Static_assert(sizeof(struct pp_prfcnt_sample_access) == 16, "kernel layout");
