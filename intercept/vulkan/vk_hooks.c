/* The device hooks' table for vkGet*ProcAddr (layer_dispatch.c), made from the one list of
 * functions (vk_functions.h): the layer below finds the hooks here without naming them. */
#include "vk_hooks.h"

#define PP_VK_HOOK_ENTRY(member, alias, kind) \
	PP_VK_ONLY_HOOK(kind, { "vk" #member, alias, (PFN_vkVoidFunction)pp_##member },)
const struct pp_hook pp_vk_device_hooks[] = { PP_VK_DEVICE_FUNCTIONS(PP_VK_HOOK_ENTRY) };
#undef PP_VK_HOOK_ENTRY
const size_t pp_vk_device_hook_count = sizeof(pp_vk_device_hooks) / sizeof(pp_vk_device_hooks[0]);
