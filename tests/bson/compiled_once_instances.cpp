// The one file of the unit tests that compiles the codecs compiled_once_models.hpp
// declares (README "Compiling a model once"): without these definitions the tests that use
// those models do not link.
#include "bson/compiled_once_models.hpp"

template struct odm::document_code<compiled_once_test::Order>;
template struct odm::embedded_code<compiled_once_test::Order>;
template struct odm::embedded_code<compiled_once_test::Line>;
