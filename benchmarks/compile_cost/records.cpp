// The codecs of the service's models, compiled once for the program (models.hpp declares
// them with ODM_COMPILE_COST_RECORDS_ELSEWHERE; target odm_compile_cost_service_split).
#include "models.hpp"

template struct odm::document_code<shop::Publisher>;
template struct odm::document_code<shop::Author>;
template struct odm::document_code<shop::Book>;
template struct odm::document_code<shop::BookSummary>;
template struct odm::document_code<shop::Category>;
template struct odm::document_code<shop::Review>;
template struct odm::document_code<shop::Product>;
template struct odm::document_code<shop::ProductHeader>;
template struct odm::embedded_code<shop::Address>;
template struct odm::embedded_code<shop::Contribution>;
template struct odm::embedded_code<shop::Review>;
template struct odm::embedded_code<shop::Dimensions>;
