/* The site table (process-wide): one entry per finding site, counted per frame, with its
 * costs; frame-end statistics per device; the snapshot the sinks read. */
#include "diag_internal.h"

/* ---- the site table (process-wide) ---------------------------------------------------------- */

struct diag_site_table pp_diag_sites_table = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct site *pp_diag_sites_find_locked(uint64_t key)
{
	if (!pp_diag_sites_table.index)
		return NULL;
	for (uint32_t i = (uint32_t)(key % INDEX_SLOTS), n = 0; n < INDEX_SLOTS; i = (i + 1) % INDEX_SLOTS, n++) {
		uint32_t v = pp_diag_sites_table.index[i];
		if (!v)
			return NULL;
		if (pp_diag_sites_table.sites[v - 1]->key == key)
			return pp_diag_sites_table.sites[v - 1];
	}
	return NULL;
}

/* NULL when the table is full (counted as other) or memory ran out. */
struct site *pp_diag_sites_insert_locked(uint64_t key)
{
	if (pp_diag_sites_table.nsites >= PP_DIAG_MAX_SITES) {
		if (!pp_diag_sites_table.full_logged)
			pp_log(PP_LOG_WARN, "diagnostics: %u distinct sites recorded; further sites are counted as "
					    "\"other\"", PP_DIAG_MAX_SITES);
		pp_diag_sites_table.full_logged = true;
		pp_diag_sites_table.other++;
		return NULL;
	}
	if (!pp_diag_sites_table.index && !(pp_diag_sites_table.index = calloc(INDEX_SLOTS, sizeof(uint32_t))))
		return NULL;
	if (pp_diag_sites_table.nsites == pp_diag_sites_table.cap) {
		uint32_t cap = pp_diag_sites_table.cap ? pp_diag_sites_table.cap * 2 : 64;
		if (cap > PP_DIAG_MAX_SITES)
			cap = PP_DIAG_MAX_SITES;
		struct site **p = realloc(pp_diag_sites_table.sites, cap * sizeof(*p));
		if (!p)
			return NULL;
		pp_diag_sites_table.sites = p;
		pp_diag_sites_table.cap = cap;
	}
	struct site *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pp_diag_sites_table.sites[pp_diag_sites_table.nsites] = s;
	s->key = key;
	uint32_t i = (uint32_t)(key % INDEX_SLOTS);
	while (pp_diag_sites_table.index[i])
		i = (i + 1) % INDEX_SLOTS;
	pp_diag_sites_table.index[i] = ++pp_diag_sites_table.nsites;
	return s;
}

void pp_diag_sites_count_locked(struct site *s, uint64_t frame, uint64_t n)
{
	if (!s->counted_any) {
		s->d.first_frame = s->d.last_frame = frame;
		s->counted_any = true;
	}
	if (!s->d.frames || frame != s->last_counted_frame)
		s->d.frames++;
	s->last_counted_frame = frame;
	if (frame > s->d.last_frame)
		s->d.last_frame = frame;
	if (frame < s->d.first_frame)
		s->d.first_frame = frame;
	s->d.count += n;
}

/* A site counted for the first time: its trace event name ("ID @ site", kept in the site, so
 * it stays valid for the sinks) and a copy to announce once the site lock is released. */
const char *pp_diag_sites_first_seen_locked(struct site *s, struct pp_diagnostic *copy)
{
	snprintf(s->trace_name, sizeof(s->trace_name), "%s @ %s", s->d.id, s->d.site);
	*copy = s->d;
	return s->trace_name;
}

void pp_diag_sites_cost(uint64_t key, uint64_t ns, uint64_t frame)
{
	pthread_mutex_lock(&pp_diag_sites_table.lock);
	struct site *s = pp_diag_sites_find_locked(key);
	if (s) {
		if (!s->cost_frames || s->cost_last_frame != frame)
			s->cost_frames++;
		s->cost_last_frame = frame;
		s->cost_sum += ns;
		s->cost_n++;
	}
	pthread_mutex_unlock(&pp_diag_sites_table.lock);
}

void pp_diag_sites_gpu_idle(uint64_t key, uint64_t ns, uint64_t frame)
{
	(void)frame;
	pthread_mutex_lock(&pp_diag_sites_table.lock);
	struct site *s = pp_diag_sites_find_locked(key);
	if (s) {
		s->idle_sum += ns;
		s->idle_n++;
	}
	pthread_mutex_unlock(&pp_diag_sites_table.lock);
}

void pp_diag_sites_frame_closed(uint32_t device_id)
{
	uint64_t t = pp_clock_now_ns();
	pthread_mutex_lock(&pp_diag_sites_table.lock);
	struct frame_stat *fs = NULL;
	for (uint32_t i = 0; i < FRAME_STAT_DEVICES && !fs; i++)
		if (pp_diag_sites_table.frames[i].closes && pp_diag_sites_table.frames[i].device_id == device_id)
			fs = &pp_diag_sites_table.frames[i];
	for (uint32_t i = 0; i < FRAME_STAT_DEVICES && !fs; i++)
		if (!pp_diag_sites_table.frames[i].closes)
			fs = &pp_diag_sites_table.frames[i];
	if (fs) {
		if (!fs->closes++) {
			fs->device_id = device_id;
			fs->first_close_ns = t;
		}
		fs->last_close_ns = t;
	}
	pthread_mutex_unlock(&pp_diag_sites_table.lock);
}

static double frame_interval_locked(uint32_t device_id)
{
	for (uint32_t i = 0; i < FRAME_STAT_DEVICES; i++) {
		const struct frame_stat *fs = &pp_diag_sites_table.frames[i];
		if (fs->closes > 1 && fs->device_id == device_id)
			return (double)(fs->last_close_ns - fs->first_close_ns) / (double)(fs->closes - 1);
	}
	return -1.0;
}

size_t pp_diag_sites_snapshot(struct pp_diagnostic *out, size_t max, uint64_t *other)
{
	pthread_mutex_lock(&pp_diag_sites_table.lock);
	size_t n = 0;
	for (uint32_t i = 0; !out && i < pp_diag_sites_table.nsites; i++)
		n += pp_diag_sites_table.sites[i]->d.count != 0;
	for (uint32_t i = 0; out && i < pp_diag_sites_table.nsites && n < max; i++) {
		struct site *s = pp_diag_sites_table.sites[i];
		if (!s->d.count)
			continue;
		struct pp_diagnostic *d = &out[n++];
		*d = s->d;
		d->share_of_frame = -1.0;
		if (s->cost_frames) {
			d->cost_valid = true;
			d->cost_ns = s->cost_sum / s->cost_frames;
			/* A barrier site is sampled: some of its occurrences in some frames (a loop's
			 * barriers rotate, at most 32 per recording). Per frame: the mean stall of one
			 * occurrence times its occurrences per frame. */
			if (s->cost_n && s->d.frames && d->cost_kind && !strcmp(d->cost_kind, "gpu_barrier_stall"))
				d->cost_ns = (uint64_t)((double)s->cost_sum / (double)s->cost_n * (double)s->d.count /
							(double)s->d.frames);
			d->cost_unavailable = NULL;
			double interval = frame_interval_locked(d->device_id);
			if (interval > 0)
				d->share_of_frame = (double)d->cost_ns / interval;
		} else {
			d->cost_valid = false;
			d->cost_ns = 0;
			if (!d->cost_unavailable)
				d->cost_unavailable = "not measured yet";
		}
		if (s->idle_n) {
			d->gpu_idle_valid = true;
			d->gpu_idle_ns = s->idle_sum / s->idle_n;
			d->gpu_idle_unavailable = NULL;
		}
		pp_diag_experiment_snapshot_locked(s, d);
	}
	if (other)
		*other = pp_diag_sites_table.other;
	pthread_mutex_unlock(&pp_diag_sites_table.lock);
	return n;
}

void pp_diag_sites_clear(void)
{
	pthread_mutex_lock(&pp_diag_sites_table.lock);
	for (uint32_t i = 0; i < pp_diag_sites_table.nsites; i++)
		free(pp_diag_sites_table.sites[i]);
	free(pp_diag_sites_table.sites);
	free(pp_diag_sites_table.index);
	pp_diag_sites_table.sites = NULL;
	pp_diag_sites_table.index = NULL;
	pp_diag_sites_table.nsites = pp_diag_sites_table.cap = 0;
	pp_diag_sites_table.other = 0;
	pp_diag_sites_table.full_logged = false;
	memset(pp_diag_sites_table.frames, 0, sizeof(pp_diag_sites_table.frames));
	pthread_mutex_unlock(&pp_diag_sites_table.lock);
	pp_diag_experiment_clear();
}

