/* libFuzzer target: the recording's reader and every decoder on arbitrary bytes (a recording
 * may come from a killed process, a newer passprobe or a damaged disk). Besides "no crash, no
 * leak, no UB": a frame that decodes is whole (its submissions name passes it holds, every
 * pass's strings are there), and it encodes again and decodes to the same counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pp_summary.h"
#include "rec_read.h"
#include "rec_write.h"

#define FUZZ_CHECK(c)                    \
	do {                             \
		if (!(c))                \
			__builtin_trap(); \
	} while (0)

static void frame_again(const struct pp_frame_result *f)
{
	struct pp_rec_writer *w = pp_rec_write_create();
	if (!w)
		return;
	pp_rec_write_frame(w, f, PP_CPU_COUNTERS_MAX, false);
	size_t len;
	const uint8_t *p = pp_rec_write_take(w, &len);
	struct pp_rec_reader *r;
	char err[128];
	FUZZ_CHECK(pp_rec_read_open(p, len, &r, err, sizeof(err)) == 0);
	struct pp_rec_record rec;
	int frames = 0;
	while (pp_rec_read_next(r, &rec) == 1) {
		FUZZ_CHECK(rec.type == PP_REC_FRAME);
		struct pp_frame_result *g;
		FUZZ_CHECK(pp_rec_read_decode_frame(r, &rec, &g, err, sizeof(err)) == 0);
		FUZZ_CHECK(g->npasses == f->npasses && g->nsubmissions == f->nsubmissions && g->index == f->index);
		for (size_t i = 0; i < g->npasses; i++)
			FUZZ_CHECK(g->passes[i].ncounters == f->passes[i].ncounters &&
				   !strcmp(g->passes[i].name, f->passes[i].name));
		pp_model_frame_result_free(g);
		frames++;
	}
	FUZZ_CHECK(frames == 1 && !pp_rec_read_notes_get(r)->cut_bytes);
	pp_rec_read_close(r);
	pp_rec_write_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_rec_reader *r;
	char err[256];
	if (pp_rec_read_open(data, size, &r, err, sizeof(err)) != 0)
		return 0;
	struct pp_rec_record rec;
	while (pp_rec_read_next(r, &rec) == 1) {
		switch (rec.type) {
		case PP_REC_FRAME: {
			struct pp_frame_result *f;
			if (pp_rec_read_decode_frame(r, &rec, &f, err, sizeof(err)) == 0) {
				for (size_t i = 0; i < f->nsubmissions; i++)
					FUZZ_CHECK(f->submissions[i].first_pass + f->submissions[i].npasses <= f->npasses);
				for (size_t i = 0; i < f->npasses; i++)
					FUZZ_CHECK(f->passes[i].api && strlen(f->passes[i].name) < sizeof(f->passes[i].name) &&
						   (f->nsubmissions == 0 || f->passes[i].submission < f->nsubmissions));
				frame_again(f);
				pp_model_frame_result_free(f);
			}
			break;
		}
		case PP_REC_PROCESS: {
			struct pp_rec_process p;
			pp_rec_read_decode_process(r, &rec, &p);
			break;
		}
		case PP_REC_DEVICE: {
			uint32_t id;
			struct pp_device_info d;
			pp_rec_read_decode_device(r, &rec, &id, &d);
			break;
		}
		case PP_REC_CPU_EVENT: {
			struct pp_rec_cpu_event e;
			pp_rec_read_decode_cpu_event(r, &rec, &e);
			break;
		}
		case PP_REC_DIAGNOSTICS: {
			struct pp_diagnostic *d;
			size_t n;
			uint64_t other;
			if (pp_rec_read_decode_diagnostics(r, &rec, &d, &n, &other) == 0)
				free(d);
			break;
		}
		case PP_REC_RENDERDOC: {
			struct pp_rec_renderdoc rd;
			pp_rec_read_decode_renderdoc(&rec, &rd);
			break;
		}
		case PP_REC_CAPTURE: {
			struct pp_rec_capture c;
			pp_rec_read_decode_capture(&rec, &c);
			pp_rec_read_capture_free(&c);
			break;
		}
		case PP_REC_SUMMARY: {
			struct pp_summary s;
			pp_rec_read_decode_summary(&rec, &s);
			pp_summary_free(&s);
			break;
		}
		case PP_REC_STATUS:
		case PP_REC_END: {
			struct pp_rec_status st;
			pp_rec_read_decode_status(&rec, &st);
			break;
		}
		default:
			break;
		}
	}
	pp_rec_read_close(r);
	return 0;
}
