/* The out-of-memory flag of pp_hash.h's uthash wrapper: one per thread, for every library
 * of passprobe's that keeps hash tables. */
#include "pp_hash.h"

_Thread_local bool pp_hash_oom_;
