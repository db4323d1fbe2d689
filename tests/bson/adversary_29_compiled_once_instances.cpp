// The codecs adversary_29_compiled_once_test.cpp declares, compiled here (README
// "Compiling a model once"): that file's models and declarations, then their
// explicit instantiation definitions.
#define ODM_ADVERSARY29_INSTANCES
#include "bson/adversary_29_compiled_once_test.cpp"
