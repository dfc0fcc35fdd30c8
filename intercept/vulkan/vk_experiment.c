/* The experiment's rewrites of pipeline barrier calls (docs/diagnostics.md, "Experiment mode"):
 * narrowing a call's destination stages, holding a call back to merge it with the next one,
 * and recording a call as the application made it. Which call to rewrite, and how, the rules
 * decide (attribution/diag/diag_experiment.c); here only what Vulkan needs for it. */
#include "vk_diag_internal.h"

/* Barrier structs of each kind a call held back may have (more: not held). The fixed arm's
 * recording cost includes passprobe's work to make the fix: kept small, one allocation. */
#define EXP_HELD_MAX 64
/* Merged calls up to this many structs of each kind (synchronization 2's size) are built on
 * the stack. */
#define EXP_MERGE_STACK 8

/* A call held back, its structs copied after it in the same allocation (the synchronization 1
 * or 2 arrays, as the call had them). */
struct vk_exp_held {
	uint32_t site;
	bool sync2;
	VkPipelineStageFlags src, dst; /* synchronization 1 */
	VkDependencyFlags deps;
	uint32_t nmem, nbuf, nimg;
	const VkMemoryBarrier *mem;
	const VkBufferMemoryBarrier *buf;
	const VkImageMemoryBarrier *img;
	const VkMemoryBarrier2 *mem2;
	const VkBufferMemoryBarrier2 *buf2;
	const VkImageMemoryBarrier2 *img2;
};

/* PP_STAGE_* in Vulkan's flags (synchronization 1's are the low 32 bits); 0 for a stage it
 * cannot name. */
static VkPipelineStageFlags2 vk_stages_from(uint32_t s)
{
	static const struct {
		uint32_t pp;
		VkPipelineStageFlags2 vk;
	} map[] = {
		{ PP_STAGE_TOP, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT },
		{ PP_STAGE_DRAW_INDIRECT, VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT },
		{ PP_STAGE_VERTEX_INPUT, VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT },
		{ PP_STAGE_VERTEX_SHADER, VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT },
		{ PP_STAGE_TESS_CONTROL, VK_PIPELINE_STAGE_2_TESSELLATION_CONTROL_SHADER_BIT },
		{ PP_STAGE_TESS_EVAL, VK_PIPELINE_STAGE_2_TESSELLATION_EVALUATION_SHADER_BIT },
		{ PP_STAGE_GEOMETRY, VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT },
		{ PP_STAGE_EARLY_FRAGMENT_TESTS, VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT },
		{ PP_STAGE_FRAGMENT_SHADER, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT },
		{ PP_STAGE_LATE_FRAGMENT_TESTS, VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT },
		{ PP_STAGE_COLOR_OUTPUT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT },
		{ PP_STAGE_COMPUTE, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT },
		{ PP_STAGE_TRANSFER, VK_PIPELINE_STAGE_2_TRANSFER_BIT },
		{ PP_STAGE_BOTTOM, VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT },
		{ PP_STAGE_HOST, VK_PIPELINE_STAGE_2_HOST_BIT },
		{ PP_STAGE_ALL_GRAPHICS, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT },
		{ PP_STAGE_ALL_COMMANDS, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT },
	};
	VkPipelineStageFlags2 out = 0;
	uint32_t left = s;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (s & map[i].pp) {
			out |= map[i].vk;
			left &= ~map[i].pp;
		}
	return left ? 0 : out;
}

/* memcpy from an application's array: NULL where its count is 0, and memcpy from NULL is
 * undefined even for 0 bytes. */
static void exp_copy(void *dst, const void *src, size_t n)
{
	if (n)
		memcpy(dst, src, n);
}

void pp_vk_experiment_emit(struct pp_command_buffer *c, const struct barrier_call *a)
{
	if (a->sync2)
		c->device->vk.CmdPipelineBarrier2(c->vk_cb, a->info);
	else
		c->device->vk.CmdPipelineBarrier(c->vk_cb, a->src, a->dst, a->deps, a->nmem, a->mem, a->nbuf, a->buf,
						 a->nimg, a->img);
}

/* Whether the call's structs carry extensions (a copy could not keep them alive). */
static bool call_extended(const struct barrier_call *a)
{
	if (a->sync2) {
		const VkDependencyInfo *d = a->info;
		if (d->pNext)
			return true;
		for (uint32_t i = 0; i < d->memoryBarrierCount; i++)
			if (d->pMemoryBarriers[i].pNext)
				return true;
		for (uint32_t i = 0; i < d->bufferMemoryBarrierCount; i++)
			if (d->pBufferMemoryBarriers[i].pNext)
				return true;
		for (uint32_t i = 0; i < d->imageMemoryBarrierCount; i++)
			if (d->pImageMemoryBarriers[i].pNext)
				return true;
		return false;
	}
	for (uint32_t i = 0; i < a->nmem; i++)
		if (a->mem[i].pNext)
			return true;
	for (uint32_t i = 0; i < a->nbuf; i++)
		if (a->buf[i].pNext)
			return true;
	for (uint32_t i = 0; i < a->nimg; i++)
		if (a->img[i].pNext)
			return true;
	return false;
}

static void call_counts(const struct barrier_call *a, uint32_t *nmem, uint32_t *nbuf, uint32_t *nimg)
{
	*nmem = a->sync2 ? a->info->memoryBarrierCount : a->nmem;
	*nbuf = a->sync2 ? a->info->bufferMemoryBarrierCount : a->nbuf;
	*nimg = a->sync2 ? a->info->imageMemoryBarrierCount : a->nimg;
}

const char *pp_vk_experiment_hold(struct pp_command_buffer *c, const struct barrier_call *a, uint32_t site)
{
	static __thread char why[160];
	if (c->device->exp_unhooked_extension[0]) {
		snprintf(why, sizeof(why),
			 "the device enables %s, whose commands passprobe may not see: a call held back to be merged "
			 "could move past one",
			 c->device->exp_unhooked_extension);
		return why;
	}
	if (call_extended(a))
		return "the call before it has structure extensions (pNext) passprobe cannot keep";
	uint32_t nmem, nbuf, nimg;
	call_counts(a, &nmem, &nbuf, &nimg);
	if (nmem > EXP_HELD_MAX || nbuf > EXP_HELD_MAX || nimg > EXP_HELD_MAX)
		return "the call before it has more barriers than passprobe holds back (64 of each kind)";
	size_t msz = a->sync2 ? sizeof(VkMemoryBarrier2) : sizeof(VkMemoryBarrier);
	size_t bsz = a->sync2 ? sizeof(VkBufferMemoryBarrier2) : sizeof(VkBufferMemoryBarrier);
	size_t isz = a->sync2 ? sizeof(VkImageMemoryBarrier2) : sizeof(VkImageMemoryBarrier);
	struct vk_exp_held *h = malloc(sizeof(*h) + nmem * msz + nbuf * bsz + nimg * isz);
	if (!h)
		return "out of memory";
	*h = (struct vk_exp_held){ 0 };
	char *m = (char *)(h + 1), *b = m + nmem * msz, *i = b + nbuf * bsz;
	h->site = site;
	h->sync2 = a->sync2;
	h->src = a->src;
	h->dst = a->dst;
	h->deps = a->deps;
	h->nmem = nmem;
	h->nbuf = nbuf;
	h->nimg = nimg;
	exp_copy(m, a->sync2 ? (const void *)a->info->pMemoryBarriers : (const void *)a->mem, nmem * msz);
	exp_copy(b, a->sync2 ? (const void *)a->info->pBufferMemoryBarriers : (const void *)a->buf, nbuf * bsz);
	exp_copy(i, a->sync2 ? (const void *)a->info->pImageMemoryBarriers : (const void *)a->img, nimg * isz);
	if (a->sync2) {
		h->mem2 = (const VkMemoryBarrier2 *)m;
		h->buf2 = (const VkBufferMemoryBarrier2 *)b;
		h->img2 = (const VkImageMemoryBarrier2 *)i;
	} else {
		h->mem = (const VkMemoryBarrier *)m;
		h->buf = (const VkBufferMemoryBarrier *)b;
		h->img = (const VkImageMemoryBarrier *)i;
	}
	c->exp_held = h;
	return NULL;
}

uint32_t pp_vk_experiment_held_site(const struct pp_command_buffer *c)
{
	return c->exp_held ? c->exp_held->site : PP_DIAG_EXP_NONE;
}

static void held_emit(struct pp_command_buffer *c, const struct vk_exp_held *h)
{
	if (h->sync2) {
		const VkDependencyInfo d = {
			.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
			.dependencyFlags = h->deps,
			.memoryBarrierCount = h->nmem,
			.pMemoryBarriers = h->mem2,
			.bufferMemoryBarrierCount = h->nbuf,
			.pBufferMemoryBarriers = h->buf2,
			.imageMemoryBarrierCount = h->nimg,
			.pImageMemoryBarriers = h->img2,
		};
		c->device->vk.CmdPipelineBarrier2(c->vk_cb, &d);
	} else {
		c->device->vk.CmdPipelineBarrier(c->vk_cb, h->src, h->dst, h->deps, h->nmem, h->mem, h->nbuf, h->buf,
						 h->nimg, h->img);
	}
}

void pp_vk_experiment_held_drop(struct pp_command_buffer *c)
{
	free(c->exp_held);
	c->exp_held = NULL;
}

void pp_vk_experiment_flush_slow(struct pp_command_buffer *c)
{
	held_emit(c, c->exp_held);
	pp_vk_experiment_held_drop(c);
}

/* The barriers of one call as synchronization2 structs, each with its own stages, appended. */
static void sync2_append(bool sync2, VkPipelineStageFlags src, VkPipelineStageFlags dst, uint32_t nmem,
			 const VkMemoryBarrier *m1, const VkMemoryBarrier2 *m2, uint32_t nbuf,
			 const VkBufferMemoryBarrier *b1, const VkBufferMemoryBarrier2 *b2, uint32_t nimg,
			 const VkImageMemoryBarrier *i1, const VkImageMemoryBarrier2 *i2, VkDependencyInfo *d,
			 VkMemoryBarrier2 *mo, VkBufferMemoryBarrier2 *bo, VkImageMemoryBarrier2 *io)
{
	for (uint32_t i = 0; i < nmem; i++)
		mo[d->memoryBarrierCount++] =
			sync2 ? m2[i]
			      : (VkMemoryBarrier2){ .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, .srcStageMask = src,
						    .srcAccessMask = m1[i].srcAccessMask, .dstStageMask = dst,
						    .dstAccessMask = m1[i].dstAccessMask };
	for (uint32_t i = 0; i < nbuf; i++)
		bo[d->bufferMemoryBarrierCount++] =
			sync2 ? b2[i]
			      : (VkBufferMemoryBarrier2){ .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
							  .srcStageMask = src, .srcAccessMask = b1[i].srcAccessMask,
							  .dstStageMask = dst, .dstAccessMask = b1[i].dstAccessMask,
							  .srcQueueFamilyIndex = b1[i].srcQueueFamilyIndex,
							  .dstQueueFamilyIndex = b1[i].dstQueueFamilyIndex,
							  .buffer = b1[i].buffer, .offset = b1[i].offset, .size = b1[i].size };
	for (uint32_t i = 0; i < nimg; i++)
		io[d->imageMemoryBarrierCount++] =
			sync2 ? i2[i]
			      : (VkImageMemoryBarrier2){ .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
							 .srcStageMask = src, .srcAccessMask = i1[i].srcAccessMask,
							 .dstStageMask = dst, .dstAccessMask = i1[i].dstAccessMask,
							 .oldLayout = i1[i].oldLayout, .newLayout = i1[i].newLayout,
							 .srcQueueFamilyIndex = i1[i].srcQueueFamilyIndex,
							 .dstQueueFamilyIndex = i1[i].dstQueueFamilyIndex,
							 .image = i1[i].image, .subresourceRange = i1[i].subresourceRange };
}

/* A merged call's three barrier arrays in one block: on the caller's stack where they fit in
 * it, else one allocation (merge_arrays_free). Every Vulkan barrier struct is a multiple of 8
 * bytes with 8-byte alignment, so the arrays can follow one another. */
struct merge_arrays {
	void *mem, *buf, *img;
	void *heap;
};

#define MERGE_STACK_BYTES                                                                                      \
	(EXP_MERGE_STACK * (sizeof(VkMemoryBarrier2) + sizeof(VkBufferMemoryBarrier2) + sizeof(VkImageMemoryBarrier2)))

_Static_assert(sizeof(VkMemoryBarrier) % 8 == 0 && sizeof(VkBufferMemoryBarrier) % 8 == 0 &&
		       sizeof(VkImageMemoryBarrier) % 8 == 0 && sizeof(VkMemoryBarrier2) % 8 == 0 &&
		       sizeof(VkBufferMemoryBarrier2) % 8 == 0 && sizeof(VkImageMemoryBarrier2) % 8 == 0,
	       "barrier arrays placed one after another stay 8-byte aligned");

static bool merge_arrays_get(struct merge_arrays *m, void *stack, size_t mem_bytes, size_t buf_bytes,
			     size_t img_bytes)
{
	size_t total = mem_bytes + buf_bytes + img_bytes;
	m->heap = total > MERGE_STACK_BYTES ? malloc(total) : NULL;
	if (total > MERGE_STACK_BYTES && !m->heap)
		return false;
	char *p = m->heap ? m->heap : stack;
	m->mem = p;
	m->buf = p + mem_bytes;
	m->img = p + mem_bytes + buf_bytes;
	return true;
}

static void merge_arrays_free(struct merge_arrays *m)
{
	free(m->heap);
}

bool pp_vk_experiment_merge(struct pp_command_buffer *c, const struct barrier_call *a, uint32_t how, const char **why)
{
	const struct vk_exp_held *h = c->exp_held;
	*why = NULL;
	if (!h)
		return false;
	if (call_extended(a)) {
		*why = "it has structure extensions (pNext) passprobe cannot merge";
		return false;
	}
	if (a->deps != h->deps) {
		*why = "its dependencyFlags differ from the call before it";
		return false;
	}
	uint32_t nmem, nbuf, nimg;
	call_counts(a, &nmem, &nbuf, &nimg);
	if (nmem > EXP_HELD_MAX || nbuf > EXP_HELD_MAX || nimg > EXP_HELD_MAX) {
		*why = "it has more barriers than passprobe merges (64 of each kind)";
		return false;
	}
	uint32_t tm = h->nmem + nmem, tb = h->nbuf + nbuf, ti = h->nimg + nimg;
	_Alignas(8) char stack[MERGE_STACK_BYTES];
	struct merge_arrays m;
	if (how == PP_DIAG_MERGE_SYNC1 && !h->sync2 && !a->sync2) {
		if (!merge_arrays_get(&m, stack, tm * sizeof(VkMemoryBarrier), tb * sizeof(VkBufferMemoryBarrier),
				      ti * sizeof(VkImageMemoryBarrier))) {
			*why = "out of memory";
			return false;
		}
		VkMemoryBarrier *mem = m.mem;
		VkBufferMemoryBarrier *buf = m.buf;
		VkImageMemoryBarrier *img = m.img;
		exp_copy(mem, h->mem, h->nmem * sizeof(*mem));
		exp_copy(mem + h->nmem, a->mem, nmem * sizeof(*mem));
		exp_copy(buf, h->buf, h->nbuf * sizeof(*buf));
		exp_copy(buf + h->nbuf, a->buf, nbuf * sizeof(*buf));
		exp_copy(img, h->img, h->nimg * sizeof(*img));
		exp_copy(img + h->nimg, a->img, nimg * sizeof(*img));
		c->device->vk.CmdPipelineBarrier(c->vk_cb, h->src | a->src, h->dst | a->dst, h->deps, tm, mem, tb, buf, ti,
						 img);
		merge_arrays_free(&m);
		pp_vk_experiment_held_drop(c);
		return true;
	}
	/* One vkCmdPipelineBarrier2, each barrier with its own stages: needs synchronization2,
	 * which the application enabled if either call is a vkCmdPipelineBarrier2. */
	if (!h->sync2 && !a->sync2 && !c->device->exp_sync2) {
		*why = "the merged call needs vkCmdPipelineBarrier2, and the device was created without "
		       "synchronization2";
		return false;
	}
	if (!merge_arrays_get(&m, stack, tm * sizeof(VkMemoryBarrier2), tb * sizeof(VkBufferMemoryBarrier2),
			      ti * sizeof(VkImageMemoryBarrier2))) {
		*why = "out of memory";
		return false;
	}
	VkDependencyInfo d = { .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .dependencyFlags = h->deps,
			       .pMemoryBarriers = m.mem, .pBufferMemoryBarriers = m.buf, .pImageMemoryBarriers = m.img };
	sync2_append(h->sync2, h->src, h->dst, h->nmem, h->mem, h->mem2, h->nbuf, h->buf, h->buf2, h->nimg, h->img,
		     h->img2, &d, m.mem, m.buf, m.img);
	sync2_append(a->sync2, a->src, a->dst, nmem, a->mem, a->sync2 ? a->info->pMemoryBarriers : NULL, nbuf, a->buf,
		     a->sync2 ? a->info->pBufferMemoryBarriers : NULL, nimg, a->img,
		     a->sync2 ? a->info->pImageMemoryBarriers : NULL, &d, m.mem, m.buf, m.img);
	c->device->vk.CmdPipelineBarrier2(c->vk_cb, &d);
	merge_arrays_free(&m);
	pp_vk_experiment_held_drop(c);
	return true;
}

const char *pp_vk_experiment_narrow(struct pp_command_buffer *c, const struct barrier_call *a, uint32_t dst)
{
	VkPipelineStageFlags2 to = vk_stages_from(dst);
	if (!to)
		return "the narrowed mask has a stage passprobe cannot name in Vulkan";
	if (!a->sync2) {
		c->device->vk.CmdPipelineBarrier(c->vk_cb, a->src, (VkPipelineStageFlags)to, a->deps, a->nmem, a->mem,
						 a->nbuf, a->buf, a->nimg, a->img);
		return NULL;
	}
	/* Each barrier keeps the part of its own stages the narrowed mask has (all of them where
	 * it has none: its consumers are then not among the proven ones). */
	const VkDependencyInfo *in = a->info;
	uint32_t nmem = in->memoryBarrierCount, nbuf = in->bufferMemoryBarrierCount, nimg = in->imageMemoryBarrierCount;
	VkMemoryBarrier2 *mem = nmem ? malloc(nmem * sizeof(*mem)) : NULL;
	VkBufferMemoryBarrier2 *buf = nbuf ? malloc(nbuf * sizeof(*buf)) : NULL;
	VkImageMemoryBarrier2 *img = nimg ? malloc(nimg * sizeof(*img)) : NULL;
	if ((nmem && !mem) || (nbuf && !buf) || (nimg && !img)) {
		free(mem);
		free(buf);
		free(img);
		return "out of memory";
	}
	const char *why = NULL;
#define NARROW(arr, from, count)                                                                      \
	for (uint32_t i = 0; i < count && !why; i++) {                                                \
		arr[i] = from[i];                                                                     \
		uint32_t mine = pp_diag_vocab_stage_expand(pp_vk_barriers_stages_of(from[i].dstStageMask), true) & dst; \
		if (mine && !(arr[i].dstStageMask = vk_stages_from(mine)))                            \
			why = "the narrowed mask has a stage passprobe cannot name in Vulkan";        \
	}
	NARROW(mem, in->pMemoryBarriers, nmem)
	NARROW(buf, in->pBufferMemoryBarriers, nbuf)
	NARROW(img, in->pImageMemoryBarriers, nimg)
#undef NARROW
	if (!why) {
		VkDependencyInfo d = *in;
		d.pMemoryBarriers = mem;
		d.pBufferMemoryBarriers = buf;
		d.pImageMemoryBarriers = img;
		c->device->vk.CmdPipelineBarrier2(c->vk_cb, &d);
	}
	free(mem);
	free(buf);
	free(img);
	return why;
}
