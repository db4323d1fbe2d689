// The one file of the unit tests that compiles the codecs record_code_models.hpp declares
// (odm::record_code, README "Compiling a model once"): without these definitions the
// tests that use those models do not link.
#include "bson/record_code_models.hpp"

template struct odm::record_code<record_code_test::Line>;
template struct odm::record_code<record_code_test::Order>;
