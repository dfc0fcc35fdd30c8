/* Per-device object tables: queues, command pools and their command buffers, and the
 * non-dispatchable objects the profiler describes (render passes, framebuffers, images, image
 * views, query pools; for the diagnostics also descriptor set layouts, pipeline layouts,
 * pipelines and buffer views), all in the one `objects` table. Descriptor sets are the
 * diagnostics' own (vk_diag_state.c, vk_descriptors.c): see struct pp_object. The hooks that keep these tables are
 * intercept/vulkan/vk_objects.c: what a table entry starts or ends above this floor (a
 * recording, attribution's queue state, diagnostics state) is theirs, reached here only
 * through the callbacks they pass. Never hold a table lock across a call down. */
#include <stdlib.h>
#include <string.h>

#include "layer_internal.h"
#include "pp_log.h"

/* ---- the per-draw fast path ----------------------------------------------------------- */

/* Bumped whenever any command buffer record is freed, so a thread's cached record can never
 * outlive the command buffer it describes. */
uint64_t pp_layer_objects_command_buffer_epoch;
_Thread_local struct pp_command_buffer_cache pp_layer_objects_command_buffer_cache_tls
	__attribute__((tls_model("initial-exec")));

struct pp_command_buffer *pp_layer_objects_command_buffer_get_slow(VkCommandBuffer cb)
{
	uint64_t epoch = __atomic_load_n(&pp_layer_objects_command_buffer_epoch, __ATOMIC_ACQUIRE);
	struct pp_device *dev = pp_layer_registry_device_lookup(pp_dispatch_key(cb));
	struct pp_command_buffer *rec = dev ? pp_layer_objects_command_buffer_lookup(dev, cb) : NULL;
	if (rec) { /* a hit's record is never NULL (layer_internal.h) */
		pp_layer_objects_command_buffer_cache_tls.handle = cb;
		pp_layer_objects_command_buffer_cache_tls.record = rec;
		pp_layer_objects_command_buffer_cache_tls.epoch = epoch;
	}
	return rec;
}

/* ---- lookups -------------------------------------------------------------------------- */

/* A dispatchable handle's record in one of the device's tables, under its read lock. */
#define FIND_BY_HANDLE(dev, table, handle, out)                                                                \
	do {                                                                                                   \
		uint64_t key_ = (uint64_t)(uintptr_t)(handle);                                                 \
		pthread_rwlock_rdlock(&(dev)->lock);                                                           \
		HASH_FIND(hh, (dev)->table, &key_, sizeof(key_), out);                                         \
		pthread_rwlock_unlock(&(dev)->lock);                                                           \
	} while (0)

struct pp_queue *pp_layer_objects_queue_lookup(struct pp_device *dev, VkQueue queue)
{
	struct pp_queue *q;
	FIND_BY_HANDLE(dev, queues, queue, q);
	return q;
}

struct pp_command_buffer *pp_layer_objects_command_buffer_lookup(struct pp_device *dev, VkCommandBuffer cb)
{
	struct pp_command_buffer *c;
	FIND_BY_HANDLE(dev, command_buffers, cb, c);
	return c;
}

struct pp_object *pp_layer_objects_find_locked(struct pp_device *dev, VkObjectType type, uint64_t handle)
{
	struct pp_object *o;
	struct pp_object_key key;
	memset(&key, 0, sizeof(key)); /* padding is part of the hashed key */
	key.handle = handle;
	key.type = type;
	HASH_FIND(hh, dev->objects, &key, sizeof(key), o);
	return o;
}

/* Pass boundaries look the same few objects up again and again (a render pass and its
 * framebuffer at every vkCmdBeginRenderPass, a pipeline at every bind that changes it), each a
 * lock and a hash of the key. A small per-thread cache answers those: an entry is good while no object table
 * anywhere changed since it was filled (pp_layer_objects_epoch, bumped under the table's write lock
 * by every insert, replace and remove, and when a device's table goes), so it answers exactly
 * what the table would, absent objects (NULL) included. It returns what pp_layer_objects_lookup
 * always returned: a pointer read without the lock. The hit is inline (pp_layer_objects_lookup,
 * layer_internal.h); a miss comes here (pp_layer_objects_lookup_slow). */
uint64_t pp_layer_objects_epoch = 1;
_Thread_local struct pp_object_cache_entry *pp_layer_objects_cache __attribute__((tls_model("initial-exec")));
static pthread_key_t object_cache_key;
static pthread_once_t object_cache_once = PTHREAD_ONCE_INIT;
static bool object_cache_key_ok;

static void object_cache_free(void *cache)
{
	pp_layer_objects_cache = NULL;
	free(cache);
}

static void object_cache_key_create(void)
{
	object_cache_key_ok = pthread_key_create(&object_cache_key, object_cache_free) == 0;
}

/* This thread's cache, or NULL when it cannot have one (lookups then take the lock). */
static struct pp_object_cache_entry *object_cache_make(void)
{
	pthread_once(&object_cache_once, object_cache_key_create);
	if (!object_cache_key_ok)
		return NULL;
	struct pp_object_cache_entry *c = calloc(PP_OBJECT_CACHE_SIZE, sizeof(*c));
	if (!c)
		return NULL;
	if (pthread_setspecific(object_cache_key, c) != 0) {
		free(c);
		return NULL;
	}
	pp_layer_objects_cache = c;
	return c;
}

static void object_epoch_bump(void)
{
	__atomic_add_fetch(&pp_layer_objects_epoch, 1, __ATOMIC_ACQ_REL);
}

/* The miss (and a thread's first lookup): the table under its read lock, the answer cached. */
struct pp_object *pp_layer_objects_lookup_slow(struct pp_device *dev, VkObjectType type, uint64_t handle)
{
	struct pp_object_cache_entry *cache = pp_layer_objects_cache;
	if (!cache)
		cache = object_cache_make();
	struct pp_object_cache_entry *e = cache ? &cache[2 * pp_layer_objects_cache_set(type, handle)] : NULL;
	/* Read before the lookup: a change made meanwhile leaves the entry already stale. */
	uint64_t epoch = __atomic_load_n(&pp_layer_objects_epoch, __ATOMIC_ACQUIRE);
	pthread_rwlock_rdlock(&dev->lock);
	struct pp_object *o = pp_layer_objects_find_locked(dev, type, handle);
	pthread_rwlock_unlock(&dev->lock);
	if (e) {
		/* The newest in way 0, the one it displaces in way 1. */
		e[1] = e[0];
		e[0] = (struct pp_object_cache_entry){ dev, handle, epoch, type, o };
	}
	return o;
}

struct pp_object *pp_layer_objects_insert_locked(struct pp_device *dev, VkObjectType type, uint64_t handle)
{
	if (dev->untracked)
		return NULL;
	struct pp_object *o = pp_layer_objects_find_locked(dev, type, handle);
	if (o)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->key.handle = handle;
	o->key.type = type;
	bool added;
	PP_HASH_ADD(dev->objects, key, sizeof(o->key), o, added);
	if (!added) {
		free(o);
		return NULL;
	}
	object_epoch_bump();
	return o;
}

/* The variable-size parts a description owns. */
static void object_desc_free(VkObjectType type, union pp_object_desc *d)
{
	switch (type) {
	case VK_OBJECT_TYPE_RENDER_PASS:
		free(d->render_pass.attachments);
		free(d->render_pass.dependencies);
		break;
	case VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT:
		free(d->set_layout.bindings);
		break;
	case VK_OBJECT_TYPE_PIPELINE_LAYOUT:
		free(d->pipeline_layout.set_layouts);
		break;
	case VK_OBJECT_TYPE_FRAMEBUFFER:
		free(d->framebuffer.views);
		break;
	default:
		break;
	}
}

static void object_free(struct pp_object *o)
{
	object_desc_free(o->key.type, &o->u);
	free(o);
}

void pp_layer_objects_record(struct pp_device *dev, VkObjectType type, uint64_t handle, union pp_object_desc *desc)
{
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_object *o = pp_layer_objects_insert_locked(dev, type, handle);
	if (o) {
		/* A handle the driver reused: the old description goes, the name stays. */
		object_desc_free(type, &o->u);
		o->u = *desc;
		object_epoch_bump();
	}
	pthread_rwlock_unlock(&dev->lock);
	if (!o)
		object_desc_free(type, desc);
}

void pp_layer_objects_remove(struct pp_device *dev, VkObjectType type, uint64_t handle)
{
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_object *o = pp_layer_objects_find_locked(dev, type, handle);
	if (o) {
		HASH_DEL(dev->objects, o);
		object_epoch_bump();
	}
	pthread_rwlock_unlock(&dev->lock);
	if (o)
		object_free(o);
}

/* ---- queues --------------------------------------------------------------------------- */

void pp_layer_objects_queue_track(struct pp_device *dev, VkQueue queue, uint32_t family, uint32_t index,
		    void (*created)(struct pp_device *dev, struct pp_queue *q))
{
	if (dev->untracked)
		return;
	uint64_t key = (uint64_t)(uintptr_t)queue;
	struct pp_queue *q;
	pthread_rwlock_wrlock(&dev->lock);
	HASH_FIND(hh, dev->queues, &key, sizeof(key), q);
	if (!q && (q = calloc(1, sizeof(*q)))) {
		q->handle = key;
		q->vk_queue = queue;
		q->family = family;
		q->index = index;
		bool added;
		PP_HASH_ADD(dev->queues, handle, sizeof(q->handle), q, added);
		if (!added) {
			free(q);
			q = NULL;
		} else {
			created(dev, q);
		}
	}
	pthread_rwlock_unlock(&dev->lock);
}

/* ---- command pools and buffers -------------------------------------------------------- */

static struct pp_command_pool *pool_find_locked(struct pp_device *dev, VkCommandPool pool)
{
	struct pp_command_pool *p;
	uint64_t key = (uint64_t)pool;
	HASH_FIND(hh, dev->pools, &key, sizeof(key), p);
	return p;
}

bool pp_layer_objects_command_pool_track(struct pp_device *dev, VkCommandPool pool, uint32_t family, bool protected_pool,
			   const char *recorded_by)
{
	struct pp_command_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return false;
	p->handle = (uint64_t)pool;
	p->family = family;
	p->protected_pool = protected_pool;
	p->recorded_by = recorded_by;
	bool added;
	pthread_rwlock_wrlock(&dev->lock);
	PP_HASH_ADD(dev->pools, handle, sizeof(p->handle), p, added);
	pthread_rwlock_unlock(&dev->lock);
	if (!added)
		free(p);
	return true;
}

/* Unlinks a command buffer record from its pool and the device table. Caller holds the
 * device lock for writing. */
static void command_buffer_unlink_locked(struct pp_device *dev, struct pp_command_buffer *c)
{
	if (c->pool) {
		if (c->pool_prev)
			c->pool_prev->pool_next = c->pool_next;
		else
			c->pool->buffers = c->pool_next;
		if (c->pool_next)
			c->pool_next->pool_prev = c->pool_prev;
	}
	HASH_DEL(dev->command_buffers, c);
	__atomic_add_fetch(&pp_layer_objects_command_buffer_epoch, 1, __ATOMIC_ACQ_REL);
}

void pp_layer_objects_command_pool_untrack(struct pp_device *dev, VkCommandPool pool,
			    void (*release)(struct pp_device *dev, struct pp_command_buffer *c))
{
	struct pp_command_buffer *list = NULL;
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_command_pool *p = pool ? pool_find_locked(dev, pool) : NULL;
	if (p) {
		HASH_DEL(dev->pools, p);
		list = p->buffers;
		for (struct pp_command_buffer *c = list; c; c = c->pool_next)
			HASH_DEL(dev->command_buffers, c);
		__atomic_add_fetch(&pp_layer_objects_command_buffer_epoch, 1, __ATOMIC_ACQ_REL);
	}
	pthread_rwlock_unlock(&dev->lock);
	for (struct pp_command_buffer *c = list, *next; c; c = next) {
		next = c->pool_next;
		release(dev, c);
	}
	free(p);
}

struct pp_command_buffer *pp_layer_objects_command_pool_buffers(struct pp_device *dev, VkCommandPool pool)
{
	pthread_rwlock_rdlock(&dev->lock);
	struct pp_command_pool *p = pool_find_locked(dev, pool);
	struct pp_command_buffer *list = p ? p->buffers : NULL;
	pthread_rwlock_unlock(&dev->lock);
	return list;
}

bool pp_layer_objects_command_buffer_track(struct pp_device *dev, VkCommandPool pool, struct pp_command_buffer *c)
{
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_command_pool *p = pool_find_locked(dev, pool);
	c->pool = p;
	c->family = p ? p->family : 0;
	bool ok;
	PP_HASH_ADD(dev->command_buffers, handle, sizeof(c->handle), c, ok);
	if (ok && p) {
		c->pool_next = p->buffers;
		if (p->buffers)
			p->buffers->pool_prev = c;
		p->buffers = c;
	}
	pthread_rwlock_unlock(&dev->lock);
	return ok;
}

struct pp_command_buffer *pp_layer_objects_command_buffer_untrack(struct pp_device *dev, VkCommandBuffer cb)
{
	uint64_t key = (uint64_t)(uintptr_t)cb;
	struct pp_command_buffer *c;
	pthread_rwlock_wrlock(&dev->lock);
	HASH_FIND(hh, dev->command_buffers, &key, sizeof(key), c);
	if (c)
		command_buffer_unlink_locked(dev, c);
	pthread_rwlock_unlock(&dev->lock);
	return c;
}

/* ---- the device's end ----------------------------------------------------------------- */

void pp_layer_objects_command_buffers_untrack_all(struct pp_device *dev,
				    void (*release)(struct pp_device *dev, struct pp_command_buffer *c))
{
	struct pp_command_buffer *c, *ctmp;
	HASH_ITER(hh, dev->command_buffers, c, ctmp) {
		HASH_DEL(dev->command_buffers, c);
		release(dev, c);
	}
	__atomic_add_fetch(&pp_layer_objects_command_buffer_epoch, 1, __ATOMIC_ACQ_REL);
}

void pp_layer_objects_device_destroy(struct pp_device *dev)
{
	struct pp_object *o, *otmp;
	struct pp_command_pool *p, *ptmp;
	struct pp_queue *q, *qtmp;

	HASH_ITER(hh, dev->pools, p, ptmp) {
		HASH_DEL(dev->pools, p);
		free(p);
	}
	/* Entries of this device (whose address a later device may get) are stale from here. */
	object_epoch_bump();
	HASH_ITER(hh, dev->objects, o, otmp) {
		HASH_DEL(dev->objects, o);
		object_free(o);
	}
	HASH_ITER(hh, dev->queues, q, qtmp) {
		HASH_DEL(dev->queues, q);
		free(q);
	}
}
