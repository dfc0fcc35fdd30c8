/* The layer's process-wide tables: its settings, and its instance and device records by
 * dispatch key, with the few devices it could not allocate a record for. Below the hooks
 * (intercept/vulkan looks devices up here) and below the loader-facing entry (layer_dispatch.c
 * registers what it creates), calling neither. */
#include <stdlib.h>
#include <string.h>

#include "layer_internal.h"
#include "pp_log.h"

struct pp_settings pp_layer_registry_settings;

static pthread_rwlock_t g_instances_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct pp_instance *g_instances;
static pthread_rwlock_t g_devices_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct pp_device *g_devices;

/* Devices created while passprobe could not allocate its record: kept without allocating,
 * so the hooks of such a device still find the chain below. */
#define PP_UNTRACKED_DEVICES 16
static pthread_mutex_t g_untracked_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pp_device g_untracked[PP_UNTRACKED_DEVICES];

/* A table of records by dispatch key under its read-write lock: find, add (false when the
 * table could not grow) and take out. The same for instances and devices. */
#define REGISTRY_TABLE(type, table, lock)                                                                      \
	static struct type *table##_find(void *key)                                                            \
	{                                                                                                      \
		struct type *rec;                                                                              \
		pthread_rwlock_rdlock(&lock);                                                                  \
		HASH_FIND_PTR(table, &key, rec);                                                               \
		pthread_rwlock_unlock(&lock);                                                                  \
		return rec;                                                                                    \
	}                                                                                                      \
	static bool table##_add(struct type *rec)                                                              \
	{                                                                                                      \
		bool ok;                                                                                       \
		pthread_rwlock_wrlock(&lock);                                                                  \
		PP_HASH_ADD_PTR(table, key, rec, ok);                                                          \
		pthread_rwlock_unlock(&lock);                                                                  \
		return ok;                                                                                     \
	}                                                                                                      \
	static struct type *table##_take(void *key)                                                            \
	{                                                                                                      \
		struct type *rec;                                                                              \
		pthread_rwlock_wrlock(&lock);                                                                  \
		HASH_FIND_PTR(table, &key, rec);                                                               \
		if (rec)                                                                                       \
			HASH_DEL(table, rec);                                                                  \
		pthread_rwlock_unlock(&lock);                                                                  \
		return rec;                                                                                    \
	}

REGISTRY_TABLE(pp_instance, g_instances, g_instances_lock)
REGISTRY_TABLE(pp_device, g_devices, g_devices_lock)

struct pp_instance *pp_layer_registry_instance_lookup(void *key)
{
	return g_instances_find(key);
}

bool pp_layer_registry_instance_register(struct pp_instance *inst)
{
	return g_instances_add(inst);
}

struct pp_instance *pp_layer_registry_instance_unregister(void *key)
{
	return g_instances_take(key);
}

static struct pp_device *untracked_find(void *key)
{
	struct pp_device *found = NULL;
	pthread_mutex_lock(&g_untracked_lock);
	for (unsigned i = 0; i < PP_UNTRACKED_DEVICES && !found; i++)
		if (g_untracked[i].key == key)
			found = &g_untracked[i];
	pthread_mutex_unlock(&g_untracked_lock);
	return found;
}

/* The first devices registered, also in a small array read without a lock: every hook of a
 * command buffer, queue or device looks its device up, a few times a frame, and the read-write
 * lock and hash of the table cost about 170 instructions a lookup. A slot's device is written
 * before its key and its key cleared before the device is taken out, each by an atomic store;
 * a lookup compares keys only, so it never reads a device another thread may be destroying
 * (a lookup of the device being destroyed is the application's misuse: Vulkan forbids using a
 * device while destroying it). Devices beyond these slots are found in the table. */
#define FRONT_DEVICES 8
static struct {
	void *key;
	struct pp_device *dev;
} g_front[FRONT_DEVICES];
static unsigned g_front_used; /* slots at or above it never held a device */

static struct pp_device *front_find(void *key)
{
	unsigned n = __atomic_load_n(&g_front_used, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		if (__atomic_load_n(&g_front[i].key, __ATOMIC_ACQUIRE) == key)
			return __atomic_load_n(&g_front[i].dev, __ATOMIC_RELAXED);
	return NULL;
}

static pthread_mutex_t g_front_lock = PTHREAD_MUTEX_INITIALIZER; /* adds and removals, one at a time */

static void front_add(struct pp_device *dev)
{
	pthread_mutex_lock(&g_front_lock);
	for (unsigned i = 0; i < FRONT_DEVICES; i++)
		if (!g_front[i].key) {
			__atomic_store_n(&g_front[i].dev, dev, __ATOMIC_RELAXED);
			__atomic_store_n(&g_front[i].key, dev->key, __ATOMIC_RELEASE);
			if (i >= g_front_used)
				__atomic_store_n(&g_front_used, i + 1, __ATOMIC_RELEASE);
			break;
		}
	pthread_mutex_unlock(&g_front_lock);
}

static void front_remove(void *key)
{
	pthread_mutex_lock(&g_front_lock);
	for (unsigned i = 0; i < g_front_used; i++)
		if (g_front[i].key == key) {
			__atomic_store_n(&g_front[i].key, NULL, __ATOMIC_RELEASE);
			__atomic_store_n(&g_front[i].dev, NULL, __ATOMIC_RELAXED);
		}
	pthread_mutex_unlock(&g_front_lock);
}

struct pp_device *pp_layer_registry_device_lookup(void *key)
{
	struct pp_device *dev = front_find(key);
	if (!dev)
		dev = g_devices_find(key);
	return dev ? dev : untracked_find(key);
}

bool pp_layer_registry_device_register(struct pp_device *dev)
{
	if (!g_devices_add(dev))
		return false;
	front_add(dev);
	return true;
}

struct pp_device *pp_layer_registry_device_unregister(void *key)
{
	front_remove(key);
	return g_devices_take(key);
}

bool pp_layer_registry_device_untracked_add(VkDevice device, void (*fill)(struct pp_device *dev, void *ctx), void *ctx)
{
	pthread_mutex_lock(&g_untracked_lock);
	struct pp_device *dev = NULL;
	for (unsigned i = 0; i < PP_UNTRACKED_DEVICES && !dev; i++)
		if (!g_untracked[i].key)
			dev = &g_untracked[i];
	if (dev) {
		memset(dev, 0, sizeof(*dev));
		dev->untracked = true;
		dev->handle = device;
		pthread_rwlock_init(&dev->lock, NULL);
		fill(dev, ctx);
		dev->key = pp_dispatch_key(device);
	}
	pthread_mutex_unlock(&g_untracked_lock);
	return dev != NULL;
}

PFN_vkDestroyDevice pp_layer_registry_device_untracked_remove(void *key)
{
	PFN_vkDestroyDevice destroy = NULL;
	pthread_mutex_lock(&g_untracked_lock);
	for (unsigned i = 0; i < PP_UNTRACKED_DEVICES && !destroy; i++)
		if (g_untracked[i].key == key) {
			destroy = g_untracked[i].vk.DestroyDevice;
			pthread_rwlock_destroy(&g_untracked[i].lock);
			g_untracked[i].key = NULL;
		}
	pthread_mutex_unlock(&g_untracked_lock);
	return destroy;
}
