/* The model's only code: the statistic names and freeing a frame. The sinks print statistics
 * under these names, so they are part of the report format (docs/report-format.md). */
#include "pp_model.h"

#include <stdlib.h>

const char *const pp_stat_names[PP_STAT_COUNT] = {
	[PP_STAT_IA_VERTICES] = "input_assembly_vertices",
	[PP_STAT_IA_PRIMITIVES] = "input_assembly_primitives",
	[PP_STAT_VS_INVOCATIONS] = "vertex_shader_invocations",
	[PP_STAT_CLIP_INVOCATIONS] = "clipping_invocations",
	[PP_STAT_CLIP_PRIMITIVES] = "clipping_primitives",
	[PP_STAT_FS_INVOCATIONS] = "fragment_shader_invocations",
	[PP_STAT_CS_INVOCATIONS] = "compute_shader_invocations",
};

void pp_frame_result_free(struct pp_frame_result *f)
{
	if (!f)
		return;
	if (f->passes) {
		for (size_t i = 0; i < f->npasses; i++)
			free(f->passes[i].draw_timings);
	}
	free(f->passes);
	free(f->submissions);
	free(f);
}
