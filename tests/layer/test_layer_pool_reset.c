/* Command pool reset and destroy release what passprobe keeps for the pool's command buffers:
 * its records, their recordings, and the query chunks their passes took. ROUNDS times: a pool,
 * BUFFERS command buffers each recording passes (a fill outside a render pass, and a render
 * pass), one submit, a fence wait; then the pool is reset and destroyed, or destroyed
 * straight away, or reset and recorded and submitted again first, never freeing a command
 * buffer individually.
 * Asserts, with the spy below passprobe counting what reaches the driver:
 *   - passprobe keeps writing timestamps in the last round as in the first (its query budget,
 *     4096 chunks, would be spent after a few hundred rounds if chunks leaked);
 *   - the number of query pools passprobe created stops growing after the warm-up;
 *   - the process heap (mallinfo2, the layer is in-process) does not grow with the rounds.
 * The report keeps the last report_frames frames (each fenced submit ends one here), which
 * costs memory until that many frames are kept: CTest sets report_frames to 16 so that the
 * history is full well before the warm-up ends. */
#include <malloc.h>
#include <time.h>
#include <string.h>

#include "lt_common.h"
#include "pp_test_vk.h"

#define ROUNDS 1000
#define WARMUP 100
#define BUFFERS 8

struct rp {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
	VkRenderPass pass;
	VkFramebuffer framebuffer;
};

/* passprobe's writer thread takes frames from a bounded queue (up to 64 frames): on a loaded
 * machine it can be behind. Both heap samples are taken once it has caught up, so the
 * comparison sees leaks, not how far behind the writer was. */
static void settle(void)
{
	struct timespec ts = { 1, 500000000L };
	nanosleep(&ts, NULL);
	malloc_trim(0);
}

static bool rp_create(struct lt_device *d, struct rp *rp)
{
	VkImageCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.extent = { 4, 4, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
	};
	if (vkCreateImage(d->device, &ici, NULL, &rp->image) != VK_SUCCESS)
		return false;
	VkMemoryRequirements req;
	vkGetImageMemoryRequirements(d->device, rp->image, &req);
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = lt_memory_type(d->pd, req.memoryTypeBits, 0),
	};
	if (vkAllocateMemory(d->device, &mai, NULL, &rp->memory) != VK_SUCCESS ||
	    vkBindImageMemory(d->device, rp->image, rp->memory, 0) != VK_SUCCESS)
		return false;
	/* Successive render passes write the same image: order them. */
	return pp_test_vk_color_view(d->device, rp->image, ici.format, &rp->view) == VK_SUCCESS &&
	       pp_test_vk_color_pass(d->device, ici.format, VK_IMAGE_LAYOUT_UNDEFINED, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
				&rp->pass) == VK_SUCCESS &&
	       pp_test_vk_framebuffer(d->device, rp->pass, rp->view, 4, 4, &rp->framebuffer) == VK_SUCCESS;
}

static void rp_destroy(struct lt_device *d, struct rp *rp)
{
	vkDestroyFramebuffer(d->device, rp->framebuffer, NULL);
	vkDestroyRenderPass(d->device, rp->pass, NULL);
	vkDestroyImageView(d->device, rp->view, NULL);
	vkDestroyImage(d->device, rp->image, NULL);
	vkFreeMemory(d->device, rp->memory, NULL);
}

static void record(struct lt_device *d, struct rp *rp, VkCommandBuffer cb, uint32_t value)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	vkBeginCommandBuffer(cb, &bi);
	vkCmdFillBuffer(cb, d->buffer, 0, VK_WHOLE_SIZE, value); /* a transfer pass */
	VkMemoryBarrier mb = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
			     VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
			     NULL);
	VkClearValue clear = { .color = { .float32 = { 0.25f, 0.5f, 0.75f, 1.0f } } };
	VkRenderPassBeginInfo rbi = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = rp->pass,
		.framebuffer = rp->framebuffer,
		.renderArea = { { 0, 0 }, { 4, 4 } },
		.clearValueCount = 1,
		.pClearValues = &clear,
	};
	vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE); /* a render pass */
	vkCmdEndRenderPass(cb);
	vkEndCommandBuffer(cb);
}

static bool submit_wait(struct lt_device *d, VkFence fence, const VkCommandBuffer *cbs, uint32_t value)
{
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = BUFFERS,
		.pCommandBuffers = cbs,
	};
	if (vkQueueSubmit(d->queue, 1, &si, fence) != VK_SUCCESS ||
	    vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS ||
	    vkResetFences(d->device, 1, &fence) != VK_SUCCESS)
		return false;
	return d->map[0] == value && d->map[LT_BUFFER_WORDS - 1] == value;
}

int main(void)
{
	VkInstance instance;
	struct lt_device d;
	struct rp rp = { 0 };
	struct lt_spy below;
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &instance)) != VK_SUCCESS ||
	    CHECK_VK(lt_device_create(&d, instance, NULL, NULL, 0, NULL)) != VK_SUCCESS || !CHECK(rp_create(&d, &rp)))
		return lt_finish();
	CHECKF(lt_spy_get("below", &below), "the spy below passprobe is not loaded");
	VkFence fence;
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	CHECK_VK(vkCreateFence(d.device, &fci, NULL, &fence));

	uint64_t warm[SPY_COUNTER_COUNT], before[SPY_COUNTER_COUNT], after[SPY_COUNTER_COUNT];
	uint64_t first_round_ts = 0, last_round_ts = 0;
	size_t heap_warm = 0;
	unsigned bad_rounds = 0;

	for (unsigned round = 0; round < ROUNDS; round++) {
		if (round == WARMUP) {
			lt_spy_totals(&below, warm);
			malloc_trim(0);
			settle();
			heap_warm = mallinfo2().uordblks;
		}
		lt_spy_totals(&below, before);

		VkCommandPool pool;
		VkCommandPoolCreateInfo pci = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
			.queueFamilyIndex = d.family,
		};
		if (vkCreateCommandPool(d.device, &pci, NULL, &pool) != VK_SUCCESS) {
			bad_rounds++;
			continue;
		}
		VkCommandBuffer cbs[BUFFERS];
		VkCommandBufferAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = pool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = BUFFERS,
		};
		bool ok = vkAllocateCommandBuffers(d.device, &ai, cbs) == VK_SUCCESS;
		for (unsigned k = 0; ok && k < BUFFERS; k++)
			record(&d, &rp, cbs[k], round * BUFFERS + k);
		ok = ok && submit_wait(&d, fence, cbs, round * BUFFERS + BUFFERS - 1);

		switch (round % 3) {
		case 0: /* reset, record and submit again, reset, destroy */
			ok = ok && vkResetCommandPool(d.device, pool, 0) == VK_SUCCESS;
			for (unsigned k = 0; ok && k < BUFFERS; k++)
				record(&d, &rp, cbs[k], ~(round * BUFFERS + k));
			ok = ok && submit_wait(&d, fence, cbs, ~(round * BUFFERS + BUFFERS - 1));
			ok = ok && vkResetCommandPool(d.device, pool, VK_COMMAND_POOL_RESET_RELEASE_RESOURCES_BIT) ==
					   VK_SUCCESS;
			break;
		case 1: /* reset, destroy */
			ok = ok && vkResetCommandPool(d.device, pool, 0) == VK_SUCCESS;
			break;
		default: /* destroy with recorded, executed command buffers in it */
			break;
		}
		vkDestroyCommandPool(d.device, pool, NULL);
		bad_rounds += !ok;

		lt_spy_totals(&below, after);
		uint64_t ts = after[SPY_CMD_WRITE_TIMESTAMP] - before[SPY_CMD_WRITE_TIMESTAMP];
		if (round == 3)
			first_round_ts = ts; /* a record-twice round, like the last one */
		if (round == ROUNDS - 1)
			last_round_ts = ts;
	}
	CHECKF(bad_rounds == 0, "%u of %u rounds failed", bad_rounds, ROUNDS);
	_Static_assert((ROUNDS - 1) % 3 == 0, "the last round must be of the same kind as round 3");

	settle();
	size_t heap_end = mallinfo2().uordblks;
	lt_spy_totals(&below, after);
	/* Each command buffer is recorded twice in those rounds, with two passes each, each pass
	 * with a begin and an end timestamp. */
	CHECKF(first_round_ts >= 2 * BUFFERS * 4, "first rounds: %llu timestamps for %u command buffers",
	       (unsigned long long)first_round_ts, BUFFERS);
	CHECKF(last_round_ts == first_round_ts, "last round: %llu timestamps, first: %llu (query chunks not returned?)",
	       (unsigned long long)last_round_ts, (unsigned long long)first_round_ts);
	CHECKF(after[SPY_CREATE_QUERY_POOL] == warm[SPY_CREATE_QUERY_POOL],
	       "passprobe created %llu query pools after the warm-up (%llu before)",
	       (unsigned long long)(after[SPY_CREATE_QUERY_POOL] - warm[SPY_CREATE_QUERY_POOL]),
	       (unsigned long long)warm[SPY_CREATE_QUERY_POOL]);
	CHECKF(after[SPY_CREATE_QUERY_POOL] <= 4, "%llu query pools in all",
	       (unsigned long long)after[SPY_CREATE_QUERY_POOL]);
	/* Leaking only the records of 8 command buffers a round would be over a MiB over the
	 * rounds (8 x 900 x ~200 bytes); allow the driver some slack. */
	long long growth = (long long)heap_end - (long long)heap_warm;
	printf("heap in use after %u rounds: %zu bytes; after %u: %zu bytes (%+lld)\n", WARMUP, heap_warm, ROUNDS,
	       heap_end, growth);
	CHECKF(growth < 256 * 1024, "heap grew by %lld bytes over %u rounds", growth, ROUNDS - WARMUP);
	if (!heap_warm && !heap_end)
		printf("note: mallinfo2 reports nothing (a sanitizer's allocator?): the heap check is moot here\n");

	vkDestroyFence(d.device, fence, NULL);
	rp_destroy(&d, &rp);
	lt_device_destroy(&d);
	lt_instance_destroy(instance);
	CHECKF(lt_debug_errors() == 0, "%u error messages", lt_debug_errors());
	return lt_finish();
}
