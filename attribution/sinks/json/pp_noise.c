/* The noise rule (pp_noise.h). */
#include "pp_noise.h"

#include <math.h>

struct pp_noise_change pp_noise_judge(double a, double b, double spread_a, double spread_b, size_t na, size_t nb,
				      int judged, double k, double min_change)
{
	struct pp_noise_change c = { a, b, NAN, NAN, NAN, PP_NOISE_UNAVAILABLE };
	if (isnan(a) || isnan(b))
		return c;
	c.delta = b - a;
	c.rel = a > 0 ? c.delta / a : (c.delta == 0 ? 0 : INFINITY);
	if (!judged || na < PP_NOISE_MIN_SAMPLES || nb < PP_NOISE_MIN_SAMPLES) {
		c.v = PP_NOISE_UNJUDGED;
		return c;
	}
	c.noise = k * (spread_a > spread_b ? spread_a : spread_b);
	int beyond = fabs(c.delta) > c.noise && fabs(c.rel) >= min_change;
	c.v = !beyond ? PP_NOISE_WITHIN : c.delta > 0 ? PP_NOISE_UP : PP_NOISE_DOWN;
	return c;
}
