/* A small application that makes a known number of each call the spy layers count, and
 * checks what the spies saw. Per instance (--instances N, default 1): a Vulkan 1.3 device
 * with timeline semaphores and synchronization2, its own timestamp query pool, and --frames N
 * (default 3) frames of: record (query reset, vkCmdWriteTimestamp, a fill, a barrier,
 * vkCmdWriteTimestamp2), submit with a fence (vkQueueSubmit and vkQueueSubmit2 by turns, the
 * latter signalling a timeline semaphore), vkWaitForFences, vkGetQueryPoolResults with
 * WAIT_BIT; then vkWaitSemaphores, vkGetSemaphoreCounterValue, vkGetQueryPoolResults without
 * WAIT_BIT, vkQueueWaitIdle, vkDeviceWaitIdle.
 * Checks: every fill lands; with the spy above loaded, it counted exactly the calls made here;
 *   --expect=equal      the spy below is loaded and saw exactly what the spy above saw (no
 *                       layer in between: the spies' self-test);
 *   --expect=passprobe  passprobe is between the spies: below sees as many blocking waits
 *                       (fences, queue/device idle, query results with WAIT_BIT, semaphore
 *                       waits) as the application made, and passprobe's own timestamps and
 *                       query pools (proof that it was there and profiling).
 * --no-messenger: no debug messenger (a validation layer then prints to stdout). */
#include <stdlib.h>
#include <string.h>

#include "lt_common.h"

static uint64_t g_made[SPY_COUNTER_COUNT]; /* calls this program made, by spy counter */

#define MADE(counter) (g_made[SPY_##counter]++)

static const enum spy_counter g_blocking[] = {
	SPY_WAIT_FOR_FENCES, SPY_QUEUE_WAIT_IDLE, SPY_DEVICE_WAIT_IDLE, SPY_QUERY_RESULTS_WAIT, SPY_WAIT_SEMAPHORES,
};

static void run_device(VkInstance instance, unsigned frames, unsigned seed)
{
	VkPhysicalDeviceSynchronization2Features sync2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES,
		.synchronization2 = VK_TRUE,
	};
	VkPhysicalDeviceTimelineSemaphoreFeatures timeline_features = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
		.pNext = &sync2,
		.timelineSemaphore = VK_TRUE,
	};
	struct lt_device d;
	if (CHECK_VK(lt_device_create(&d, instance, &timeline_features, NULL, 0, NULL)) != VK_SUCCESS)
		return;
	VkDevice dev = d.device;

	VkSemaphoreTypeCreateInfo sti = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
	};
	VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &sti };
	VkSemaphore timeline;
	CHECK_VK(vkCreateSemaphore(dev, &sci, NULL, &timeline));
	VkQueryPoolCreateInfo qpci = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 2,
	};
	VkQueryPool queries;
	CHECK_VK(vkCreateQueryPool(dev, &qpci, NULL, &queries));
	MADE(CREATE_QUERY_POOL);
	VkCommandBuffer cb;
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = d.pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	CHECK_VK(vkAllocateCommandBuffers(dev, &ai, &cb));
	MADE(ALLOCATE_COMMAND_BUFFERS);
	VkFence fence;
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	CHECK_VK(vkCreateFence(dev, &fci, NULL, &fence));

	uint64_t signalled = 0;
	for (unsigned f = 0; f < frames; f++) {
		uint32_t value = seed * 1000u + f;
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		CHECK_VK(vkBeginCommandBuffer(cb, &bi));
		vkCmdResetQueryPool(cb, queries, 0, 2);
		MADE(CMD_RESET_QUERY_POOL);
		vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 0);
		MADE(CMD_WRITE_TIMESTAMP);
		vkCmdFillBuffer(cb, d.buffer, 0, VK_WHOLE_SIZE, value);
		VkMemoryBarrier2 mb = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
			.srcStageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
			.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
			.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
			.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
		};
		VkDependencyInfo dep = {
			.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
			.memoryBarrierCount = 1,
			.pMemoryBarriers = &mb,
		};
		vkCmdPipelineBarrier2(cb, &dep);
		vkCmdWriteTimestamp2(cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, queries, 1);
		MADE(CMD_WRITE_TIMESTAMP2);
		CHECK_VK(vkEndCommandBuffer(cb));

		if (f % 2 == 0) {
			VkSubmitInfo si = {
				.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
				.commandBufferCount = 1,
				.pCommandBuffers = &cb,
			};
			CHECK_VK(vkQueueSubmit(d.queue, 1, &si, fence));
			MADE(QUEUE_SUBMIT);
		} else {
			VkCommandBufferSubmitInfo cbi = {
				.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
				.commandBuffer = cb,
			};
			VkSemaphoreSubmitInfo signal = {
				.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
				.semaphore = timeline,
				.value = ++signalled,
				.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
			};
			VkSubmitInfo2 si = {
				.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
				.commandBufferInfoCount = 1,
				.pCommandBufferInfos = &cbi,
				.signalSemaphoreInfoCount = 1,
				.pSignalSemaphoreInfos = &signal,
			};
			CHECK_VK(vkQueueSubmit2(d.queue, 1, &si, fence));
			MADE(QUEUE_SUBMIT2);
		}
		CHECK_VK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
		MADE(WAIT_FOR_FENCES);
		CHECK_VK(vkResetFences(dev, 1, &fence));
		CHECKF(d.map[0] == value && d.map[LT_BUFFER_WORDS - 1] == value, "frame %u: fill result wrong", f);
		uint64_t ts[2] = { 0, 0 };
		CHECK_VK(vkGetQueryPoolResults(dev, queries, 0, 2, sizeof(ts), ts, sizeof(ts[0]),
					       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
		MADE(QUERY_RESULTS_WAIT);
		CHECKF(ts[1] >= ts[0], "frame %u: timestamps %llu then %llu", f, (unsigned long long)ts[0],
		       (unsigned long long)ts[1]);
	}

	VkSemaphoreWaitInfo wi = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.semaphoreCount = 1,
		.pSemaphores = &timeline,
		.pValues = &signalled,
	};
	CHECK_VK(vkWaitSemaphores(dev, &wi, UINT64_MAX));
	MADE(WAIT_SEMAPHORES);
	uint64_t counter = 0;
	CHECK_VK(vkGetSemaphoreCounterValue(dev, timeline, &counter));
	MADE(SEMAPHORE_COUNTER_VALUE);
	CHECKF(counter == signalled, "timeline at %llu, expected %llu", (unsigned long long)counter,
	       (unsigned long long)signalled);
	uint64_t ts[2];
	VkResult r = vkGetQueryPoolResults(dev, queries, 0, 2, sizeof(ts), ts, sizeof(ts[0]), VK_QUERY_RESULT_64_BIT);
	MADE(QUERY_RESULTS_NOWAIT);
	CHECKF(r == VK_SUCCESS || (frames == 0 && r == VK_NOT_READY), "vkGetQueryPoolResults %d", r);
	CHECK_VK(vkQueueWaitIdle(d.queue));
	MADE(QUEUE_WAIT_IDLE);
	CHECK_VK(vkDeviceWaitIdle(dev));
	MADE(DEVICE_WAIT_IDLE);

	vkDestroyFence(dev, fence, NULL);
	vkFreeCommandBuffers(dev, d.pool, 1, &cb);
	vkDestroyQueryPool(dev, queries, NULL);
	MADE(DESTROY_QUERY_POOL);
	vkDestroySemaphore(dev, timeline, NULL);
	lt_device_destroy(&d);
	MADE(DEVICE_WAIT_IDLE); /* lt_device_destroy waits for the device before destroying */
}

static void print_counts(const char *who, const uint64_t *c)
{
	printf("%-10s", who);
	for (unsigned i = 0; i < SPY_COUNTER_COUNT; i++)
		printf(" %s=%llu", spy_counter_name(i), (unsigned long long)c[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	unsigned instances = 1, frames = 3;
	const char *expect = "";
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--instances=", 12))
			instances = (unsigned)atoi(argv[i] + 12);
		else if (!strncmp(argv[i], "--frames=", 9))
			frames = (unsigned)atoi(argv[i] + 9);
		else if (!strncmp(argv[i], "--expect=", 9))
			expect = argv[i] + 9;
		else if (!strcmp(argv[i], "--no-messenger"))
			lt_messenger_enabled = false;
		else {
			fprintf(stderr, "usage: %s [--instances=N] [--frames=N] [--expect=equal|passprobe] "
					"[--no-messenger]\n", argv[0]);
			return 2;
		}
	}

	struct lt_spy above = { 0 }, below = { 0 };
	for (unsigned i = 0; i < instances; i++) {
		VkInstance instance;
		if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &instance)) != VK_SUCCESS)
			break;
		if (i == 0) {
			lt_spy_get("above", &above);
			lt_spy_get("below", &below);
		}
		run_device(instance, frames, i + 1);
		lt_instance_destroy(instance);
	}

	uint64_t a[SPY_COUNTER_COUNT], b[SPY_COUNTER_COUNT];
	lt_spy_totals(&above, a);
	lt_spy_totals(&below, b);
	print_counts("made", g_made);
	if (above.loaded)
		print_counts("above", a);
	if (below.loaded)
		print_counts("below", b);

	if (above.loaded)
		for (unsigned c = 0; c < SPY_COUNTER_COUNT; c++)
			CHECKF(a[c] == g_made[c], "spy above counted %llu %s, the application made %llu",
			       (unsigned long long)a[c], spy_counter_name(c), (unsigned long long)g_made[c]);

	if (!strcmp(expect, "equal")) {
		CHECKF(above.loaded && below.loaded, "both spies must be loaded");
		for (unsigned c = 0; c < SPY_COUNTER_COUNT; c++)
			CHECKF(b[c] == a[c], "%s: below %llu, above %llu", spy_counter_name(c), (unsigned long long)b[c],
			       (unsigned long long)a[c]);
	} else if (!strcmp(expect, "passprobe")) {
		CHECKF(above.loaded && below.loaded, "both spies must be loaded");
		for (unsigned i = 0; i < sizeof(g_blocking) / sizeof(g_blocking[0]); i++) {
			enum spy_counter c = g_blocking[i];
			CHECKF(b[c] == a[c], "blocking %s: %llu reached the driver, the application made %llu",
			       spy_counter_name(c), (unsigned long long)b[c], (unsigned long long)a[c]);
		}
		CHECKF(b[SPY_CMD_WRITE_TIMESTAMP] > a[SPY_CMD_WRITE_TIMESTAMP],
		       "no timestamps of passprobe's own below it (is it between the spies, and profiling?)");
		CHECKF(b[SPY_CREATE_QUERY_POOL] > a[SPY_CREATE_QUERY_POOL], "no query pool of passprobe's own");
		CHECKF(b[SPY_QUEUE_SUBMIT] == a[SPY_QUEUE_SUBMIT] && b[SPY_QUEUE_SUBMIT2] == a[SPY_QUEUE_SUBMIT2],
		       "passprobe added or dropped submissions");
	} else if (*expect) {
		fprintf(stderr, "unknown --expect=%s\n", expect);
		return 2;
	}
	if (lt_messenger_enabled)
		CHECKF(lt_debug_errors() == 0, "%u error messages", lt_debug_errors());
	return lt_finish();
}
