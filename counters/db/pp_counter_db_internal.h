#pragma once
/* Inside counters/db: the AST of a parsed equation, and the generated database tables. */
#include <stddef.h>
#include <stdint.h>

#include "pp_counter_db.h"
#include "pp_expr.h"

enum pp_expr_op {
	PP_OP_NUM = 0,
	PP_OP_REF,
	PP_OP_NEG,
	PP_OP_ADD,
	PP_OP_SUB,
	PP_OP_MUL,
	PP_OP_DIV,
	PP_OP_MAX,
	PP_OP_MIN,
	PP_OP_SUM,
};

struct pp_expr_node {
	double num;     /* PP_OP_NUM */
	int32_t a, b;   /* operand node indices; -1 none */
	int32_t ref;    /* PP_OP_REF: index into refs */
	int32_t offset; /* of the operator, number, name or function in the text */
	uint8_t op;     /* enum pp_expr_op */
};

struct pp_expr_ref {
	int32_t offset;
	int32_t len;
	int32_t entry; /* database entry once resolved; -1 before */
};

struct pp_expr {
	char *text;
	struct pp_expr_node *nodes;
	struct pp_expr_ref *refs;
	uint32_t node_count, ref_count;
	int32_t root;
};

/* Fills err (when not NULL) with offset and a printf message. */
void pp_expr_error_set(struct pp_expr_error *err, int32_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The tables counters/db/gen/pp_counter_dbgen writes (pp_counter_db_data.c in the build). */
extern const struct pp_counter_db *const pp_counter_db_data_list[];
extern const size_t pp_counter_db_data_count;
