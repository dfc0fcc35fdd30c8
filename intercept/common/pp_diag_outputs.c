/* The diagnostics rules' outputs connected to the sinks. */
#include "pp_diag_outputs.h"
#include "pp_sink.h"

struct pp_diag_device *pp_diag_outputs_device_create(struct pp_diag_config cfg)
{
	cfg.out = (struct pp_diag_outputs){
		.site_seen = pp_sink_diagnostic,
		.captured = pp_sink_renderdoc_diagnostic,
	};
	struct pp_diag_device *d = pp_diag_device_create(&cfg);
	if (d)
		pp_sink_diagnostics_source(pp_diag_snapshot);
	return d;
}
