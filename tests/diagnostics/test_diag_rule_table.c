/* The rule table (attribution/diag/diag_rules.h) against what it promises: every rule's id is
 * unique and says its kind (PASSPROBE-Barrier-, -Blocking-, -Pass-), a barrier rule is
 * Vulkan's and leaves its texts to the barrier judgement, every other rule has its message and
 * suggestion, the accessors answer from the table, and every rule's docs anchor is a section of
 * docs/diagnostics.md (the path is the argument). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_diag.h"
#include "pp_check.h"

struct row {
	enum pp_diag_rule rule;
	const char *name, *id, *docs, *reason, *message, *suggestion;
	enum pp_diag_rule_kind kind;
	enum pp_diag_rule_api api;
};

#define ROW(name, id, kind, api, severity, docs, reason, message, suggestion)                               \
	{ PP_DIAG_##name, #name, id, docs, reason, message, suggestion, PP_DIAG_KIND_##kind, PP_DIAG_API_##api },
static const struct row rows[] = { PP_DIAG_RULES(ROW) };
#undef ROW

/* GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, spaces as '-'. */
static void anchor_of(const char *heading, char *out, size_t cap)
{
	size_t n = 0;
	for (const char *p = heading; *p && *p != '\n' && n + 1 < cap; p++) {
		char c = *p;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c == ' ')
			c = '-';
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
			continue;
		out[n++] = c;
	}
	out[n] = 0;
}

static int docs_has(const char *docs, const char *anchor)
{
	for (const char *p = docs; (p = strstr(p, "\n### ")); p++) {
		char a[256];
		anchor_of(p + 5, a, sizeof(a));
		if (!strcmp(a, anchor))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_diag_rule_table docs/diagnostics.md\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		fprintf(stderr, "FAIL: cannot open %s\n", argv[1]);
		return 1;
	}
	static char docs[1 << 20];
	size_t len = fread(docs, 1, sizeof(docs) - 1, f);
	fclose(f);
	docs[len] = 0;

	size_t n = sizeof(rows) / sizeof(rows[0]);
	CHECK(n == PP_DIAG_RULE_COUNT, "%zu rows, %d rules", n, PP_DIAG_RULE_COUNT);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		CHECK(r->rule == (enum pp_diag_rule)i, "%s: row %zu is rule %d", r->name, i, r->rule);
		const char *prefix = r->kind == PP_DIAG_KIND_BARRIER    ? "PASSPROBE-Barrier-"
				     : r->kind == PP_DIAG_KIND_BLOCKING ? "PASSPROBE-Blocking-"
									: "PASSPROBE-Pass-";
		CHECK(!strncmp(r->id, prefix, strlen(prefix)), "%s: id %s does not begin with %s", r->name, r->id, prefix);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(r->id, rows[j].id), "%s: id %s also names %s", r->name, r->id, rows[j].name);
		CHECK(r->reason && *r->reason, "%s: no severity reason", r->name);
		if (r->kind == PP_DIAG_KIND_BARRIER) {
			CHECK(r->api == PP_DIAG_API_VULKAN, "%s: a barrier rule of another API", r->name);
			CHECK(!r->message && !r->suggestion, "%s: a barrier rule's texts come from its barrier", r->name);
		} else {
			CHECK(r->message && *r->message && r->suggestion && *r->suggestion, "%s: no message or suggestion",
			      r->name);
		}
		CHECK(!strcmp(pp_diag_vocab_rule_id(r->rule), r->id), "%s: pp_diag_vocab_rule_id", r->name);
		CHECK(pp_diag_vocab_rule_kind(r->rule) == r->kind && pp_diag_vocab_rule_api(r->rule) == r->api &&
			      pp_diag_vocab_rule_is_barrier(r->rule) == (r->kind == PP_DIAG_KIND_BARRIER),
		      "%s: kind and api accessors", r->name);
		CHECK(!strcmp(pp_diag_vocab_rule_docs(r->rule), r->docs), "%s: pp_diag_vocab_rule_docs", r->name);
		CHECK(docs_has(docs, r->docs), "%s: %s has no section #%s", r->name, argv[1], r->docs);
	}
	CHECK(!strcmp(pp_diag_vocab_rule_id(PP_DIAG_RULE_COUNT), "PASSPROBE-unknown"), "an unknown rule's id");
	if (!check_failed)
		printf("%zu rules: ids, kinds, texts and docs sections as the table says\n", n);
	return check_finish();
}
