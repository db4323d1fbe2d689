# readme_block_after(<text> <marker> <out>): the body of the fenced block that the first
# `marker` (its announcement and opening fence) opens in `text`.
function(readme_block_after text marker out)
  string(FIND "${text}" "${marker}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md has no block announced by ${marker}")
  endif()
  string(LENGTH "${marker}" marker_length)
  math(EXPR begin "${at} + ${marker_length}")
  string(SUBSTRING "${text}" ${begin} -1 rest)
  string(FIND "${rest}" "```\n" end)
  string(SUBSTRING "${rest}" 0 ${end} body)
  set(${out} "${body}" PARENT_SCOPE)
endfunction()

# readme_block(<README path> <name> <out>): the body of the ```sh block that README.md
# announces with `<!-- run by the test <name> -->`, for a test that runs the README's
# own commands.
function(readme_block readme_path name out)
  file(READ ${readme_path} readme)
  readme_block_after("${readme}" "<!-- run by the test ${name} -->\n```sh\n" body)
  set(${out} "${body}" PARENT_SCOPE)
endfunction()

# readme_run(<script text> <work dir> <log name>): runs the commands with bash -e from
# odm's source folder, each echoed; fails with their output.
function(readme_run script work_dir name)
  file(WRITE ${work_dir}/${name}.sh "set -euxo pipefail\n${script}")
  execute_process(COMMAND bash ${work_dir}/${name}.sh WORKING_DIRECTORY ${SOURCE_DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(WRITE ${work_dir}/${name}.log "${out}\n${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the README's commands failed (${work_dir}/${name}.sh):\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
