// The kernel is in a local header: inlined before normalizing, as `clgen corpus add` does.
#include "gather_body.h"
