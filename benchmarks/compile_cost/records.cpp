// The codecs of the service's models, compiled once for the program (models.hpp declares
// them with ODM_COMPILE_COST_RECORDS_ELSEWHERE; target odm_compile_cost_service_split).
#include "models.hpp"

template struct odm::record_code<shop::Address>;
template struct odm::record_code<shop::Publisher>;
template struct odm::record_code<shop::Contribution>;
template struct odm::record_code<shop::Author>;
template struct odm::record_code<shop::Book>;
template struct odm::record_code<shop::BookSummary>;
template struct odm::record_code<shop::Category>;
template struct odm::record_code<shop::Review>;
template struct odm::record_code<shop::Dimensions>;
template struct odm::record_code<shop::Product>;
template struct odm::record_code<shop::ProductHeader>;
