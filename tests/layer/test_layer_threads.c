/* Concurrency: CREATORS threads each create and destroy an instance and a device ITERATIONS
 * times (every few rounds with a submit on it), while WORKERS threads allocate, record, submit
 * and free (or pool-reset) command buffers on one long-lived device, each with its own pool
 * and buffer and the one queue shared under a mutex (queues are externally synchronized).
 * Asserts: every call succeeds, every fill lands, no debug error (CTest runs this with the
 * validation layer below passprobe when it is installed), and no crash. Built with
 * -DPASSPROBE_SANITIZE=thread this is the ThreadSanitizer run of the layer's tables. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lt_common.h"

#define CREATORS 4
#define ITERATIONS 20
#define WORKERS 2
#define WORKER_MIN_ROUNDS 20

static struct lt_device g_shared;
static pthread_mutex_t g_queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_creators_left = CREATORS;

static void *creator(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	for (unsigned i = 0; i < ITERATIONS; i++) {
		VkInstance instance;
		VkResult r = lt_instance_create(i % 2 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2, &instance);
		if (!CHECKF(r == VK_SUCCESS, "creator %u round %u: vkCreateInstance %d", id, i, r))
			break;
		struct lt_device d;
		r = lt_device_create(&d, instance, NULL, NULL, 0, NULL);
		CHECKF(r == VK_SUCCESS, "creator %u round %u: vkCreateDevice %d", id, i, r);
		if (r == VK_SUCCESS && i % 5 == id % 5)
			CHECKF(lt_device_fill(&d, id * 1000 + i), "creator %u round %u: fill", id, i);
		lt_device_destroy(&d);
		lt_instance_destroy(instance);
	}
	__atomic_sub_fetch(&g_creators_left, 1, __ATOMIC_ACQ_REL);
	return NULL;
}

struct worker_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	uint32_t *map;
};

static bool worker_buffer_create(struct worker_buffer *b)
{
	VkDevice dev = g_shared.device;
	VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = LT_BUFFER_WORDS * sizeof(uint32_t),
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	};
	if (vkCreateBuffer(dev, &bci, NULL, &b->buffer) != VK_SUCCESS)
		return false;
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(dev, b->buffer, &req);
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = lt_memory_type(g_shared.pd, req.memoryTypeBits,
						  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
							  VK_MEMORY_PROPERTY_HOST_COHERENT_BIT),
	};
	return vkAllocateMemory(dev, &mai, NULL, &b->memory) == VK_SUCCESS &&
	       vkBindBufferMemory(dev, b->buffer, b->memory, 0) == VK_SUCCESS &&
	       vkMapMemory(dev, b->memory, 0, VK_WHOLE_SIZE, 0, (void **)&b->map) == VK_SUCCESS;
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	VkDevice dev = g_shared.device;
	VkCommandPool pool;
	VkFence fence;
	struct worker_buffer buf = { 0 };
	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.queueFamilyIndex = g_shared.family,
	};
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	if (!CHECK(vkCreateCommandPool(dev, &pci, NULL, &pool) == VK_SUCCESS) ||
	    !CHECK(vkCreateFence(dev, &fci, NULL, &fence) == VK_SUCCESS) || !CHECK(worker_buffer_create(&buf)))
		return NULL;

	for (unsigned round = 0;
	     round < WORKER_MIN_ROUNDS || __atomic_load_n(&g_creators_left, __ATOMIC_ACQUIRE) > 0; round++) {
		VkCommandBuffer cbs[3];
		VkCommandBufferAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = pool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = 3,
		};
		if (!CHECK(vkAllocateCommandBuffers(dev, &ai, cbs) == VK_SUCCESS))
			break;
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		uint32_t value = id * 100000u + round;
		VkMemoryBarrier mb = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT,
		};
		for (unsigned k = 0; k < 3; k++) {
			CHECK(vkBeginCommandBuffer(cbs[k], &bi) == VK_SUCCESS);
			if (k != 1) { /* cbs[1] stays empty */
				vkCmdFillBuffer(cbs[k], buf.buffer, 0, VK_WHOLE_SIZE, k == 2 ? value : ~value);
				vkCmdPipelineBarrier(cbs[k], VK_PIPELINE_STAGE_TRANSFER_BIT,
						     VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
						     &mb, 0, NULL, 0, NULL);
			}
			CHECK(vkEndCommandBuffer(cbs[k]) == VK_SUCCESS);
		}
		/* The previous submission ended with a barrier to TRANSFER; the first fill of this
		 * one comes after it in submission order. */
		VkSubmitInfo si = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = 3,
			.pCommandBuffers = cbs,
		};
		pthread_mutex_lock(&g_queue_lock);
		VkResult r = vkQueueSubmit(g_shared.queue, 1, &si, fence);
		pthread_mutex_unlock(&g_queue_lock);
		CHECKF(r == VK_SUCCESS, "worker %u: vkQueueSubmit %d", id, r);
		CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
		CHECK(vkResetFences(dev, 1, &fence) == VK_SUCCESS);
		bool ok = true;
		for (uint32_t i = 0; i < LT_BUFFER_WORDS; i++)
			ok &= buf.map[i] == value;
		CHECKF(ok, "worker %u round %u: fill result wrong", id, round);
		if (round % 4 == 3)
			CHECK(vkResetCommandPool(dev, pool, 0) == VK_SUCCESS); /* the buffers stay allocated */
		else
			vkFreeCommandBuffers(dev, pool, 3, cbs);
	}
	vkDestroyCommandPool(dev, pool, NULL);
	vkDestroyFence(dev, fence, NULL);
	vkUnmapMemory(dev, buf.memory);
	vkDestroyBuffer(dev, buf.buffer, NULL);
	vkFreeMemory(dev, buf.memory, NULL);
	return NULL;
}

int main(void)
{
	VkInstance instance;
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &instance)) != VK_SUCCESS ||
	    CHECK_VK(lt_device_create(&g_shared, instance, NULL, NULL, 0, NULL)) != VK_SUCCESS)
		return lt_finish();

	pthread_t threads[CREATORS + WORKERS];
	for (unsigned i = 0; i < WORKERS; i++)
		CHECK(pthread_create(&threads[i], NULL, worker, (void *)(uintptr_t)i) == 0);
	for (unsigned i = 0; i < CREATORS; i++)
		CHECK(pthread_create(&threads[WORKERS + i], NULL, creator, (void *)(uintptr_t)i) == 0);
	for (unsigned i = 0; i < CREATORS + WORKERS; i++)
		pthread_join(threads[i], NULL);

	CHECK(lt_device_fill(&g_shared, 0xfeedu));
	lt_device_destroy(&g_shared);
	lt_instance_destroy(instance);
	CHECKF(lt_debug_errors() == 0, "%u error messages", lt_debug_errors());
	return lt_finish();
}
