#pragma once
/* Whose code called passprobe: the application (with the libraries it uses and the Vulkan
 * loader), or a layer above passprobe doing work of its own (RenderDoc's capture copies and
 * overlay, an overlay layer's HUD pass). docs/frame-debuggers.md, "Whose work it is".
 *
 * A layer above passprobe reaches it two ways: passing the application's call on (its hook of
 * the same command calls passprobe's), and calling commands of its own, always from inside its
 * handling of some call of the application's (vkCreateDevice, vkCreateSwapchainKHR, a present)
 * once it has passed that call on, or from inside a call of its own API. So a call is the
 * layer's own when it comes from a layer's code (pp_callers_layer) while that thread is still
 * inside the layer's handling of an earlier call passprobe saw pass (pp_callers_entry_note,
 * pp_callers_own_work). */
#include <stdbool.h>

/* At vkCreateInstance and vkCreateDevice: the libraries on the stack between passprobe and the
 * Vulkan loader are the layers above passprobe; learns them (at most 8, for the process). */
void pp_callers_layers_learn(void);

/* The index of the layer above passprobe whose code `pc` lies in, or -1 (the application, the
 * loader, or no layer learnt). Lock-free: a few compares per learnt layer. */
int pp_callers_layer(const void *pc);

/* The file name of layer i's library ("librenderdoc.so"); static, lives as long as the process. */
const char *pp_callers_layer_name(int i);

/* Called by a hook whose direct caller (ra) is a layer's code: remembers, for this thread, where
 * the layer's handling of the application's call lives on the stack, so that calls the layer
 * makes before it returns to the application are known as its own. Costs a short stack walk,
 * and only where a layer called. */
void pp_callers_entry_note(const void *ra);

/* Whether a call whose direct caller is `ra` is a layer's own work: the index of that layer, or
 * -1 (the application's, or a layer passing the application's call on). */
int pp_callers_own_work(const void *ra);
