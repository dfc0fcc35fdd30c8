#pragma once
/* Counter equations: parse text into an AST (the grammar is in docs/counters.md).
 *
 *   expr    := term   (('+' | '-') term)*
 *   term    := unary  (('*' | '/') unary)*
 *   unary   := '-' unary | '+' unary | primary
 *   primary := NUMBER | NAME | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
 *   NAME    := '$' [A-Za-z0-9_]+  |  [A-Za-z_][A-Za-z0-9_]* ('.' [A-Za-z0-9_]+)*
 *   FUNC    := max (2 arguments) | min (2) | SUM (1)   (any case)
 *
 * Parsing allocates the tree once; names stay unresolved until an evaluator binds them to a
 * database (pp_counter_eval.h). Errors carry the byte offset and what was expected there.
 * Depth is limited (PP_EXPR_MAX_DEPTH, PP_EXPR_MAX_TREE_DEPTH) so that parsing's and
 * evaluation's recursion is bounded. */
#include <stddef.h>
#include <stdint.h>

#define PP_EXPR_MAX_DEPTH 64       /* parentheses, calls and signs nested */
#define PP_EXPR_MAX_TREE_DEPTH 256 /* operations nested or chained ("a + b + c" is 2 deep) */
#define PP_EXPR_MAX_LEN 8192

struct pp_expr_error {
	int32_t offset;     /* byte offset in the text; -1 when not about a position */
	char message[200];  /* "expected ')' to close '(' at offset 4" */
};

struct pp_expr;

/* 0, or -EINVAL with err filled (err may be NULL), or -ENOMEM. */
int pp_expr_parse(const char *text, struct pp_expr **out, struct pp_expr_error *err);
void pp_expr_free(struct pp_expr *e);

/* The text it was parsed from (a copy). */
const char *pp_expr_text(const struct pp_expr *e);
/* Names referred to, in order of appearance (repeats included). */
size_t pp_expr_ref_count(const struct pp_expr *e);
/* Name i: pointer into pp_expr_text (not NUL-terminated), its length and offset. */
const char *pp_expr_ref(const struct pp_expr *e, size_t i, size_t *len, int32_t *offset);
/* The entry name i was resolved to (pp_counter_eval), -1 before. */
int pp_expr_ref_entry(const struct pp_expr *e, size_t i);
