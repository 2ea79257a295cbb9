/* Instantiates the rtest tracepoint provider (see rtest-tp.h). */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "rtest-tp.h"
