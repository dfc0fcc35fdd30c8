/* The diagnostics rules' outputs connected to the sinks. */
#include "pp_diag_outputs.h"
#include "pp_sink.h"

struct pp_diag_device *pp_diag_outputs_device_create(struct pp_diag_config cfg)
{
	cfg.out = (struct pp_diag_outputs){
		.site_seen = pp_attr_sink_diagnostic,
		.captured = pp_attr_renderdoc_sink_diagnostic,
	};
	struct pp_diag_device *d = pp_diag_device_create(&cfg);
	if (d)
		pp_attr_sink_diagnostics_source_set(pp_diag_sites_snapshot);
	return d;
}
