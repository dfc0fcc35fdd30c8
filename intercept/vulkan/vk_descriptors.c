/* A mirror of the device's descriptor sets (their bindings and the resources written to them),
 * under a lock of its own, for the rules to know what a bound set uses; the descriptor set,
 * pool and push-descriptor hooks that keep it. */
#include "vk_diag_internal.h"

/* ---- device state: descriptor sets ----------------------------------------------------------- */

/* ---- descriptor sets and their contents ------------------------------------------------------- */

static void set_free(struct dset *s)
{
	free(s->b);
	free(s->slots);
	free(s);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_AllocateDescriptorSets(VkDevice device, const VkDescriptorSetAllocateInfo *info,
							 VkDescriptorSet *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	VkResult r = dev->vk.AllocateDescriptorSets(device, info, out);
	struct pp_vk_diag *vd = r == VK_SUCCESS ? pp_vk_diag_state_get(dev) : NULL;
	if (!vd)
		return r;
	pthread_rwlock_wrlock(&vd->lock);
	for (uint32_t i = 0; i < info->descriptorSetCount; i++) {
		struct dset *s = calloc(1, sizeof(*s));
		if (!s)
			break;
		s->handle = (uint64_t)out[i];
		s->pool = (uint64_t)info->descriptorPool;
		pthread_rwlock_rdlock(&dev->lock);
		struct pp_object *l = pp_layer_objects_find_locked(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
							    (uint64_t)info->pSetLayouts[i]);
		s->unknown = !l || l->u.set_layout.partial;
		if (l) {
			s->nbindings = l->u.set_layout.nbindings;
			s->total = l->u.set_layout.total;
			s->b = malloc((s->nbindings ? s->nbindings : 1) * sizeof(*s->b));
			s->slots = calloc(s->total ? s->total : 1, sizeof(*s->slots));
			if (s->b)
				memcpy(s->b, l->u.set_layout.bindings, s->nbindings * sizeof(*s->b));
		}
		pthread_rwlock_unlock(&dev->lock);
		if (l && (!s->b || !s->slots)) {
			set_free(s);
			continue;
		}
		struct dset *old;
		HASH_FIND(hh, vd->sets, &s->handle, sizeof(s->handle), old);
		if (old) {
			HASH_DEL(vd->sets, old);
			set_free(old);
		}
		bool added;
		PP_HASH_ADD(vd->sets, handle, sizeof(s->handle), s, added);
		if (!added)
			set_free(s);
	}
	pthread_rwlock_unlock(&vd->lock);
	return r;
}

static void sets_forget(struct pp_vk_diag *vd, uint32_t n, const VkDescriptorSet *sets, uint64_t pool)
{
	pthread_rwlock_wrlock(&vd->lock);
	if (sets) {
		for (uint32_t i = 0; i < n; i++) {
			uint64_t h = (uint64_t)sets[i];
			struct dset *s;
			HASH_FIND(hh, vd->sets, &h, sizeof(h), s);
			if (s) {
				HASH_DEL(vd->sets, s);
				set_free(s);
			}
		}
	} else {
		struct dset *s, *tmp;
		HASH_ITER(hh, vd->sets, s, tmp)
			if (s->pool == pool) {
				HASH_DEL(vd->sets, s);
				set_free(s);
			}
	}
	pthread_rwlock_unlock(&vd->lock);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_FreeDescriptorSets(VkDevice device, VkDescriptorPool pool, uint32_t n,
						     const VkDescriptorSet *sets)
{
	struct pp_device *dev = pp_vk_device_of(device);
	if (diag_of(dev))
		sets_forget(diag_of(dev), n, sets, 0);
	return dev->vk.FreeDescriptorSets(device, pool, n, sets);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_ResetDescriptorPool(VkDevice device, VkDescriptorPool pool,
						      VkDescriptorPoolResetFlags flags)
{
	struct pp_device *dev = pp_vk_device_of(device);
	if (diag_of(dev))
		sets_forget(diag_of(dev), 0, NULL, (uint64_t)pool);
	return dev->vk.ResetDescriptorPool(device, pool, flags);
}

VKAPI_ATTR void VKAPI_CALL pp_DestroyDescriptorPool(VkDevice device, VkDescriptorPool pool,
						    const VkAllocationCallbacks *alloc)
{
	struct pp_device *dev = pp_vk_device_of(device);
	if (diag_of(dev) && pool)
		sets_forget(diag_of(dev), 0, NULL, (uint64_t)pool);
	dev->vk.DestroyDescriptorPool(device, pool, alloc);
}

/* The resource a descriptor names, and which part of it: images through their views (their
 * subresource range), texel buffers through their buffer views, buffers with the descriptor's
 * offset and range (dynamic ones: the whole buffer, their offsets move at bind time). Caller
 * holds dev->lock (for reading). */
static uint64_t write_resource(struct pp_device *dev, const VkWriteDescriptorSet *w, uint32_t i,
			       struct pp_diag_range *range)
{
	*range = (struct pp_diag_range){ 0 };
	if (pp_vk_descriptor_is_image(w->descriptorType)) {
		if (!w->pImageInfo || !w->pImageInfo[i].imageView)
			return 0;
		struct pp_object *v = pp_layer_objects_find_locked(dev, VK_OBJECT_TYPE_IMAGE_VIEW,
							    (uint64_t)w->pImageInfo[i].imageView);
		if (!v)
			return 0;
		*range = pp_vk_diag_state_image_range_locked(dev, v->u.image_view.image, &v->u.image_view.range);
		return v->u.image_view.image;
	}
	if (w->descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER ||
	    w->descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER) {
		if (!w->pTexelBufferView)
			return 0;
		struct pp_object *v = pp_layer_objects_find_locked(dev, VK_OBJECT_TYPE_BUFFER_VIEW,
							    (uint64_t)w->pTexelBufferView[i]);
		if (!v)
			return 0;
		*range = pp_vk_diag_state_buffer_range(v->u.buffer_view.offset, v->u.buffer_view.range);
		return v->u.buffer_view.buffer;
	}
	if (pp_vk_descriptor_is_buffer(w->descriptorType)) {
		if (!w->pBufferInfo)
			return 0;
		if (w->descriptorType != VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC &&
		    w->descriptorType != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC)
			*range = pp_vk_diag_state_buffer_range(w->pBufferInfo[i].offset, w->pBufferInfo[i].range);
		return (uint64_t)w->pBufferInfo[i].buffer;
	}
	return 0;
}

/* Writes consecutive descriptors, rolling over into the next bindings as Vulkan does. */
static void set_write(struct pp_device *dev, struct dset *s, const VkWriteDescriptorSet *w)
{
	if (s->unknown)
		return;
	uint32_t k = 0;
	while (k < s->nbindings && s->b[k].binding < w->dstBinding)
		k++;
	if (k == s->nbindings || s->b[k].binding != w->dstBinding)
		return;
	uint32_t elem = w->dstArrayElement;
	for (uint32_t i = 0; i < w->descriptorCount; i++, elem++) {
		while (k < s->nbindings && elem >= s->b[k].count) {
			elem -= s->b[k].count;
			k++;
		}
		if (k == s->nbindings)
			return;
		struct dslot *sl = &s->slots[s->b[k].base + elem];
		sl->handle = write_resource(dev, w, i, &sl->range);
	}
}

VKAPI_ATTR void VKAPI_CALL pp_UpdateDescriptorSets(VkDevice device, uint32_t nw, const VkWriteDescriptorSet *writes,
						   uint32_t nc, const VkCopyDescriptorSet *copies)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_vk_diag *vd = diag_of(dev);
	if (vd) {
		pthread_rwlock_wrlock(&vd->lock);
		pthread_rwlock_rdlock(&dev->lock); /* the views the writes name */
		for (uint32_t i = 0; i < nw; i++) {
			uint64_t h = (uint64_t)writes[i].dstSet;
			struct dset *s;
			HASH_FIND(hh, vd->sets, &h, sizeof(h), s);
			if (s)
				set_write(dev, s, &writes[i]);
		}
		pthread_rwlock_unlock(&dev->lock);
		for (uint32_t i = 0; i < nc; i++) {
			/* Copies are rare: the destination's contents become unknown. */
			uint64_t h = (uint64_t)copies[i].dstSet;
			struct dset *s;
			HASH_FIND(hh, vd->sets, &h, sizeof(h), s);
			if (s)
				s->unknown = true;
		}
		pthread_rwlock_unlock(&vd->lock);
	}
	dev->vk.UpdateDescriptorSets(device, nw, writes, nc, copies);
}

VKAPI_ATTR void VKAPI_CALL pp_UpdateDescriptorSetWithTemplate(VkDevice device, VkDescriptorSet set,
							      VkDescriptorUpdateTemplate tmpl, const void *data)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_vk_diag *vd = diag_of(dev);
	if (vd) {
		/* Templates are not followed: whatever the set holds is unknown from now on. */
		uint64_t h = (uint64_t)set;
		struct dset *s;
		pthread_rwlock_wrlock(&vd->lock);
		HASH_FIND(hh, vd->sets, &h, sizeof(h), s);
		if (s)
			s->unknown = true;
		pthread_rwlock_unlock(&vd->lock);
	}
	dev->vk.UpdateDescriptorSetWithTemplate(device, set, tmpl, data);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdPushDescriptorSetKHR(VkCommandBuffer cb, VkPipelineBindPoint bp,
						      VkPipelineLayout layout, uint32_t set, uint32_t nw,
						      const VkWriteDescriptorSet *writes)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	pp_vk_quirks_descriptors_pushed(c, bp, layout, set, nw, writes);
	struct pp_vk_diag_cb *s = c ? vk_diag_state_cb(c) : NULL;
	if (s && (bp == VK_PIPELINE_BIND_POINT_GRAPHICS || bp == VK_PIPELINE_BIND_POINT_COMPUTE)) {
		pp_vk_diag_state_observe(c, s);
		struct bind_point *b = &s->bp[bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? BP_GRAPHICS : BP_COMPUTE];
		struct pp_device *dev = c->device;
		pthread_rwlock_rdlock(&dev->lock);
		struct pp_object *pl = pp_layer_objects_find_locked(dev, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)layout);
		struct pp_object *l = NULL;
		if (pl && set < pl->u.pipeline_layout.nsets)
			l = pp_layer_objects_find_locked(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
						  pl->u.pipeline_layout.set_layouts[set]);
		/* A push replaces what was pushed before for this bind point. */
		b->npush = 0;
		b->push_unknown = !l;
		b->push_unknown_stages = PP_STAGE_WORK;
		for (uint32_t i = 0; l && i < nw; i++) {
			const struct pp_dsl_binding *bd = NULL;
			for (uint32_t k = 0; k < l->u.set_layout.nbindings && !bd; k++)
				if (l->u.set_layout.bindings[k].binding == writes[i].dstBinding)
					bd = &l->u.set_layout.bindings[k];
			for (uint32_t e = 0; bd && e < writes[i].descriptorCount; e++) {
				struct pp_diag_range rg;
				uint64_t h = write_resource(dev, &writes[i], e, &rg);
				if (!h)
					continue;
				if (b->npush == MAX_PUSH) {
					b->push_unknown = true;
					break;
				}
				b->push[b->npush].handle = h;
				b->push[b->npush].range = rg;
				b->push[b->npush].kind = bd->kind;
				b->push[b->npush].stages = bd->stages;
				b->push[b->npush].write = bd->write;
				b->npush++;
			}
		}
		pthread_rwlock_unlock(&dev->lock);
		b->dirty = true;
	}
	pp_vk_cb_device(c, cb)->vk.CmdPushDescriptorSetKHR(cb, bp, layout, set, nw, writes);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer cb, VkDescriptorUpdateTemplate tmpl,
								  VkPipelineLayout layout, uint32_t set, const void *data)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	/* The template's bind point and descriptor types are not followed: any, every stage. */
	pp_vk_quirks_uniforms_set(c, PP_VK_ANY_BIND_POINT, VK_SHADER_STAGE_ALL);
	struct pp_vk_diag_cb *s = c ? vk_diag_state_cb(c) : NULL;
	if (s) {
		/* Not followed; the bind point is not known either: both become unknown. */
		pp_vk_diag_state_observe(c, s);
		for (int i = 0; i < 2; i++) {
			s->bp[i].push_unknown = true;
			s->bp[i].push_unknown_stages = PP_STAGE_WORK;
			s->bp[i].dirty = true;
		}
	}
	pp_vk_cb_device(c, cb)->vk.CmdPushDescriptorSetWithTemplateKHR(cb, tmpl, layout, set, data);
}

