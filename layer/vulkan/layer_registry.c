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

struct pp_device *pp_layer_registry_device_lookup(void *key)
{
	struct pp_device *dev = g_devices_find(key);
	return dev ? dev : untracked_find(key);
}

bool pp_layer_registry_device_register(struct pp_device *dev)
{
	return g_devices_add(dev);
}

struct pp_device *pp_layer_registry_device_unregister(void *key)
{
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
