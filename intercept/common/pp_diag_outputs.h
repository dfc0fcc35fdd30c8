/* The diagnostics rules' outputs connected to the sinks (docs/architecture.md: the rules in
 * attribution/diag call no output; the front ends that create their devices connect them). */
#ifndef PP_DIAG_OUTPUTS_H
#define PP_DIAG_OUTPUTS_H

#include "attr_diag.h"

/* A diagnostics device whose findings reach the sinks: report.json's diagnostics (the sinks
 * read pp_diag_sites_snapshot), a new site's instant on the trace, a captured frame's findings with
 * their calls. NULL when out of memory. */
struct pp_diag_device *pp_diag_outputs_device_create(struct pp_diag_config cfg);

#endif
