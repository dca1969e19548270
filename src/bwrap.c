/* The bubblewrap fallback (layer F); not written yet. */
#include "bwrap.h"
