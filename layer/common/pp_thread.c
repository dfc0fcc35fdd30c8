/* The calling thread's roles in the frames (pp_thread.h). */
#include "pp_thread.h"

__thread uint8_t pp_thread_roles;
