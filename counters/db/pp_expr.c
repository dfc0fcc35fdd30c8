/* Counter equations: a recursive-descent parser into a flat node array (grammar in pp_expr.h
 * and docs/counters.md). One allocation for the text copy, one for the nodes, one for the
 * names; the node count is bounded by the token count, counted in a first pass. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_counter_db_internal.h"

void pp_expr_error_set(struct pp_expr_error *err, int32_t offset, const char *fmt, ...)
{
	if (!err)
		return;
	va_list ap;
	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

enum tok_kind {
	TOK_END = 0,
	TOK_NUM,
	TOK_NAME,
	TOK_PUNCT, /* one of + - * / ( ) , */
	TOK_BAD,   /* a character no token starts with */
};

struct tok {
	enum tok_kind kind;
	int32_t offset, len;
	double num;
};

struct parser {
	const char *text;
	int32_t len, pos;
	struct tok tok; /* the current token */
	struct pp_expr *e;
	uint32_t node_cap, ref_cap;
	int depth;
	struct pp_expr_error *err;
	int failed; /* 1: bad text, 2: out of memory */
};

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Scans a number at text+pos: digits, an optional fraction, an optional exponent. Converted
 * through strtod on a rewritten copy without a decimal point ("12.5e3" -> "125e2"), so that the
 * process's locale (an application may have set one) cannot change what '.' means. Returns its
 * length, 0 when malformed. */
static int32_t scan_number(const char *s, int32_t avail, double *out)
{
	char buf[96];
	size_t n = 0;
	int32_t i = 0;
	long frac_digits = 0;
	bool any = false;

	while (i < avail && is_digit(s[i])) {
		if (n < 40)
			buf[n++] = s[i];
		else
			frac_digits--; /* a digit dropped from the integer part scales by 10 */
		i++;
		any = true;
	}
	if (i < avail && s[i] == '.') {
		i++;
		while (i < avail && is_digit(s[i])) {
			if (n < 40) {
				buf[n++] = s[i];
				frac_digits++;
			}
			i++;
			any = true;
		}
	}
	if (!any)
		return 0;
	long exp = 0;
	if (i < avail && (s[i] == 'e' || s[i] == 'E')) {
		int32_t j = i + 1;
		bool neg = false;
		if (j < avail && (s[j] == '+' || s[j] == '-'))
			neg = s[j++] == '-';
		if (j >= avail || !is_digit(s[j]))
			return 0;
		while (j < avail && is_digit(s[j])) {
			if (exp < 100000)
				exp = exp * 10 + (s[j] - '0');
			j++;
		}
		exp = neg ? -exp : exp;
		i = j;
	}
	if (n == 0)
		buf[n++] = '0';
	snprintf(buf + n, sizeof(buf) - n, "e%ld", exp - frac_digits);
	*out = strtod(buf, NULL);
	return i;
}

/* Reads the token at p->pos into p->tok and advances past it. */
static void next(struct parser *p)
{
	const char *s = p->text;
	while (p->pos < p->len &&
	       (s[p->pos] == ' ' || s[p->pos] == '\t' || s[p->pos] == '\n' || s[p->pos] == '\r'))
		p->pos++;
	struct tok *t = &p->tok;
	t->offset = p->pos;
	t->len = 0;
	if (p->pos >= p->len) {
		t->kind = TOK_END;
		return;
	}
	char c = s[p->pos];
	if (is_digit(c) || (c == '.' && p->pos + 1 < p->len && is_digit(s[p->pos + 1]))) {
		t->len = scan_number(s + p->pos, p->len - p->pos, &t->num);
		if (t->len == 0) {
			t->kind = TOK_BAD;
			t->len = 1;
		} else {
			t->kind = TOK_NUM;
		}
	} else if (c == '$') {
		int32_t i = p->pos + 1;
		while (i < p->len && is_name_char(s[i]))
			i++;
		t->kind = TOK_NAME;
		t->len = i - p->pos;
	} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
		int32_t i = p->pos;
		for (;;) {
			while (i < p->len && is_name_char(s[i]))
				i++;
			/* "L2.EXT_RRESP_0_127": a dot joins name parts, only when one follows. */
			if (i + 1 < p->len && s[i] == '.' && is_name_char(s[i + 1]))
				i++;
			else
				break;
		}
		t->kind = TOK_NAME;
		t->len = i - p->pos;
	} else if (strchr("+-*/(),", c)) {
		t->kind = TOK_PUNCT;
		t->len = 1;
	} else {
		t->kind = TOK_BAD;
		t->len = 1;
	}
	p->pos += t->len;
}

static bool punct(const struct parser *p, char c)
{
	return p->tok.kind == TOK_PUNCT && p->text[p->tok.offset] == c;
}

/* What the current token is, for messages: "')'", "the name 'X'", "the end". */
static const char *tok_desc(const struct parser *p, char *buf, size_t len)
{
	const struct tok *t = &p->tok;
	switch (t->kind) {
	case TOK_END:
		return "the end of the equation";
	case TOK_NUM:
		snprintf(buf, len, "the number '%.*s'", (int)(t->len > 40 ? 40 : t->len),
			 p->text + t->offset);
		return buf;
	case TOK_NAME:
		snprintf(buf, len, "the name '%.*s'", (int)(t->len > 60 ? 60 : t->len),
			 p->text + t->offset);
		return buf;
	case TOK_PUNCT:
		snprintf(buf, len, "'%c'", p->text[t->offset]);
		return buf;
	case TOK_BAD:
	default: {
		unsigned char c = (unsigned char)p->text[t->offset];
		if (c >= 0x20 && c < 0x7f)
			snprintf(buf, len, "the character '%c'", c);
		else
			snprintf(buf, len, "the byte 0x%02x", c);
		return buf;
	}
	}
}

static void fail(struct parser *p, int32_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(struct parser *p, int32_t offset, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = 1;
	if (!p->err)
		return;
	va_list ap;
	p->err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(p->err->message, sizeof(p->err->message), fmt, ap);
	va_end(ap);
}

static int32_t add_node(struct parser *p, uint8_t op, int32_t offset, int32_t a, int32_t b)
{
	struct pp_expr *e = p->e;
	if (e->node_count >= p->node_cap) { /* cannot happen: one node per token at most */
		fail(p, offset, "internal error: more nodes than tokens");
		return -1;
	}
	struct pp_expr_node *n = &e->nodes[e->node_count];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->offset = offset;
	n->a = a;
	n->b = b;
	n->ref = -1;
	return (int32_t)e->node_count++;
}

static int32_t parse_expr(struct parser *p);

static const struct {
	const char *name;
	uint8_t op;
	int args;
} functions[] = {
	{ "max", PP_OP_MAX, 2 },
	{ "min", PP_OP_MIN, 2 },
	{ "SUM", PP_OP_SUM, 1 },
};

static int32_t parse_call(struct parser *p, const struct tok *name)
{
	const char *s = p->text + name->offset;
	int fn = -1;
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
		if ((size_t)name->len == strlen(functions[i].name) &&
		    strncasecmp(s, functions[i].name, (size_t)name->len) == 0)
			fn = (int)i;
	if (fn < 0) {
		fail(p, name->offset, "unknown function '%.*s': the functions are max(a, b), "
				      "min(a, b) and SUM(a)",
		     (int)(name->len > 60 ? 60 : name->len), s);
		return -1;
	}
	int32_t open = p->tok.offset;
	next(p); /* past '(' */
	int32_t args[2] = { -1, -1 };
	int count = 0;
	for (;;) {
		int32_t a = parse_expr(p);
		if (p->failed)
			return -1;
		if (count < 2)
			args[count] = a;
		count++;
		if (punct(p, ',')) {
			next(p);
			continue;
		}
		if (punct(p, ')'))
			break;
		char buf[96];
		fail(p, p->tok.offset, "expected ',' or ')' in the arguments of %s( at offset %d, "
				       "found %s",
		     functions[fn].name, (int)open, tok_desc(p, buf, sizeof(buf)));
		return -1;
	}
	if (count != functions[fn].args) {
		fail(p, name->offset, "%s takes %d argument%s, got %d", functions[fn].name,
		     functions[fn].args, functions[fn].args == 1 ? "" : "s", count);
		return -1;
	}
	next(p); /* past ')' */
	return add_node(p, functions[fn].op, name->offset, args[0], args[1]);
}

static int32_t parse_primary(struct parser *p)
{
	char buf[96];
	struct tok t = p->tok;

	if (t.kind == TOK_NUM) {
		if (!isfinite(t.num)) {
			fail(p, t.offset, "number out of range");
			return -1;
		}
		next(p);
		int32_t n = add_node(p, PP_OP_NUM, t.offset, -1, -1);
		if (n >= 0)
			p->e->nodes[n].num = t.num;
		return n;
	}
	if (t.kind == TOK_NAME) {
		next(p);
		if (punct(p, '('))
			return parse_call(p, &t);
		if (t.len == 1 && p->text[t.offset] == '$') {
			fail(p, t.offset, "expected a counter name after '$'");
			return -1;
		}
		struct pp_expr *e = p->e;
		if (e->ref_count >= p->ref_cap) {
			fail(p, t.offset, "internal error: more names than tokens");
			return -1;
		}
		struct pp_expr_ref *r = &e->refs[e->ref_count];
		r->offset = t.offset;
		r->len = t.len;
		r->entry = -1;
		int32_t n = add_node(p, PP_OP_REF, t.offset, -1, -1);
		if (n >= 0)
			e->nodes[n].ref = (int32_t)e->ref_count++;
		return n;
	}
	if (punct(p, '(')) {
		next(p);
		int32_t inner = parse_expr(p);
		if (p->failed)
			return -1;
		if (!punct(p, ')')) {
			fail(p, p->tok.offset, "expected ')' to close the '(' at offset %d, found %s",
			     (int)t.offset, tok_desc(p, buf, sizeof(buf)));
			return -1;
		}
		next(p);
		return inner;
	}
	if (t.kind == TOK_BAD && (is_digit(p->text[t.offset]) || p->text[t.offset] == '.'))
		fail(p, t.offset, "malformed number");
	else
		fail(p, t.offset, "expected a number, a counter name, a function call or '(', "
				  "found %s",
		     tok_desc(p, buf, sizeof(buf)));
	return -1;
}

static int32_t parse_unary(struct parser *p)
{
	if (punct(p, '-') || punct(p, '+')) {
		int32_t offset = p->tok.offset;
		bool neg = p->text[offset] == '-';
		if (++p->depth > PP_EXPR_MAX_DEPTH) {
			fail(p, offset, "nested deeper than %d levels", PP_EXPR_MAX_DEPTH);
			return -1;
		}
		next(p);
		int32_t a = parse_unary(p);
		p->depth--;
		if (p->failed)
			return -1;
		return neg ? add_node(p, PP_OP_NEG, offset, a, -1) : a;
	}
	return parse_primary(p);
}

/* A left-associative chain of operands joined by either of two operators ("a * b / c"). */
static int32_t parse_chain(struct parser *p, int32_t (*operand)(struct parser *), char op1, uint8_t code1, char op2,
			   uint8_t code2)
{
	int32_t a = operand(p);
	while (!p->failed && (punct(p, op1) || punct(p, op2))) {
		int32_t offset = p->tok.offset;
		uint8_t op = p->text[offset] == op1 ? code1 : code2;
		next(p);
		int32_t b = operand(p);
		if (p->failed)
			return -1;
		a = add_node(p, op, offset, a, b);
	}
	return p->failed ? -1 : a;
}

static int32_t parse_term(struct parser *p)
{
	return parse_chain(p, parse_unary, '*', PP_OP_MUL, '/', PP_OP_DIV);
}

static int32_t parse_expr(struct parser *p)
{
	if (++p->depth > PP_EXPR_MAX_DEPTH) {
		fail(p, p->tok.offset, "nested deeper than %d levels", PP_EXPR_MAX_DEPTH);
		return -1;
	}
	int32_t a = parse_chain(p, parse_term, '+', PP_OP_ADD, '-', PP_OP_SUB);
	p->depth--;
	return a;
}

/* Evaluation recurses along the tree: a long chain ("a + b + c + ...") is as deep as it is
 * long, so the tree's depth is bounded too, not only the parentheses. Nodes are created
 * children first, so one forward pass finds every depth. */
static void check_depth(struct parser *p)
{
	struct pp_expr *e = p->e;
	uint16_t *depth = calloc(e->node_count, sizeof(*depth));
	if (!depth) {
		p->failed = 2;
		return;
	}
	for (uint32_t i = 0; i < e->node_count && !p->failed; i++) {
		const struct pp_expr_node *n = &e->nodes[i];
		uint16_t d = 0;
		if (n->a >= 0 && depth[n->a] > d)
			d = depth[n->a];
		if (n->b >= 0 && depth[n->b] > d)
			d = depth[n->b];
		depth[i] = (uint16_t)(d + 1);
		if (depth[i] > PP_EXPR_MAX_TREE_DEPTH)
			fail(p, n->offset, "equation too deep: more than %d operations nested or "
					   "chained",
			     PP_EXPR_MAX_TREE_DEPTH);
	}
	free(depth);
}

int pp_expr_parse(const char *text, struct pp_expr **out, struct pp_expr_error *err)
{
	*out = NULL;
	if (err) {
		err->offset = -1;
		err->message[0] = '\0';
	}
	size_t len = text ? strnlen(text, PP_EXPR_MAX_LEN + 1) : 0;
	if (len > PP_EXPR_MAX_LEN) {
		pp_expr_error_set(err, -1, "equation longer than %d bytes", PP_EXPR_MAX_LEN);
		return -EINVAL;
	}

	/* First pass: count tokens (bounds the nodes) and names. */
	struct parser p = { .text = text ? text : "", .len = (int32_t)len };
	uint32_t tokens = 0, names = 0;
	for (next(&p); p.tok.kind != TOK_END; next(&p)) {
		tokens++;
		names += p.tok.kind == TOK_NAME;
	}
	if (tokens == 0) {
		pp_expr_error_set(err, 0, "empty equation: expected a number, a counter name, a "
					  "function call or '('");
		return -EINVAL;
	}

	struct pp_expr *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->text = malloc(len + 1);
	e->nodes = calloc(tokens, sizeof(*e->nodes));
	e->refs = names ? calloc(names, sizeof(*e->refs)) : NULL;
	if (!e->text || !e->nodes || (names && !e->refs)) {
		pp_expr_free(e);
		return -ENOMEM;
	}
	memcpy(e->text, p.text, len);
	e->text[len] = '\0';

	p = (struct parser){ .text = e->text, .len = (int32_t)len, .e = e, .node_cap = tokens,
			     .ref_cap = names, .err = err };
	next(&p);
	e->root = parse_expr(&p);
	if (!p.failed && p.tok.kind != TOK_END) {
		char buf[96];
		fail(&p, p.tok.offset, "expected an operator (+ - * /) or the end of the equation, "
				       "found %s",
		     tok_desc(&p, buf, sizeof(buf)));
	}
	if (!p.failed)
		check_depth(&p);
	if (p.failed) {
		pp_expr_free(e);
		return p.failed == 2 ? -ENOMEM : -EINVAL;
	}
	*out = e;
	return 0;
}

void pp_expr_free(struct pp_expr *e)
{
	if (!e)
		return;
	free(e->text);
	free(e->nodes);
	free(e->refs);
	free(e);
}

const char *pp_expr_text(const struct pp_expr *e)
{
	return e ? e->text : NULL;
}

size_t pp_expr_ref_count(const struct pp_expr *e)
{
	return e ? e->ref_count : 0;
}

const char *pp_expr_ref(const struct pp_expr *e, size_t i, size_t *len, int32_t *offset)
{
	if (!e || i >= e->ref_count)
		return NULL;
	if (len)
		*len = (size_t)e->refs[i].len;
	if (offset)
		*offset = e->refs[i].offset;
	return e->text + e->refs[i].offset;
}

int pp_expr_ref_entry(const struct pp_expr *e, size_t i)
{
	return e && i < e->ref_count ? e->refs[i].entry : -1;
}
