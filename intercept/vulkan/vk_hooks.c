/* The device hooks' table for vkGet*ProcAddr (layer_dispatch.c), made from the one list of
 * functions (vk_functions.h): the layer below finds the hooks here without naming them. */
#include "vk_hooks.h"

#define PP_VK_HOOK_ENTRY(member, alias, kind) \
	PP_VK_ONLY_HOOK(kind, { "vk" #member, alias, (PFN_vkVoidFunction)pp_##member },)
const struct pp_hook pp_vk_hooks_device[] = { PP_VK_DEVICE_FUNCTIONS(PP_VK_HOOK_ENTRY) };
#undef PP_VK_HOOK_ENTRY
const size_t pp_vk_hooks_device_count = sizeof(pp_vk_hooks_device) / sizeof(pp_vk_hooks_device[0]);

/* Hooks that serve some devices only. The binds an engine makes before every draw are hooked
 * for the diagnostics (vk_diag_state.c, vk_descriptors.c) and for lavapipe's
 * uniforms-before-pipeline quirk (vk_cmd.c). Where neither applies, vkGetDeviceProcAddr
 * answers the function below instead: those calls then cost passprobe nothing. Asked after
 * vkCreateDevice, when both are settled: the settings are read once, and the quirk is set
 * while the device is created and never turned on later. */
bool pp_vk_hooks_serves(const struct pp_device *dev, PFN_vkVoidFunction hook)
{
	bool diag = pp_layer_registry_settings.diagnostics, quirk = dev->quirk_uniforms_before_pipeline;
	if (hook == (PFN_vkVoidFunction)pp_CmdPushConstants)
		return quirk;
	if (hook == (PFN_vkVoidFunction)pp_CmdBindVertexBuffers || hook == (PFN_vkVoidFunction)pp_CmdBindVertexBuffers2 ||
	    hook == (PFN_vkVoidFunction)pp_CmdBindIndexBuffer)
		return diag;
	if (hook == (PFN_vkVoidFunction)pp_CmdBindPipeline || hook == (PFN_vkVoidFunction)pp_CmdBindDescriptorSets ||
	    hook == (PFN_vkVoidFunction)pp_CmdPushDescriptorSetKHR ||
	    hook == (PFN_vkVoidFunction)pp_CmdPushDescriptorSetWithTemplateKHR)
		return diag || quirk;
	return true;
}
