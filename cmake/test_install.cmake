# Installs the build tree into a scratch prefix, then configures, builds and runs the consumer
# project of tests/consumer against it: checks that find_package(rhoflow) works downstream.
# Run as: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DRANDOM123_INCLUDE_DIR=... -P test_install.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed (${rc})")
endif()
# Random123 somewhere else than where rhoflow was built against: the package must find it there
# and carry that directory to the consumer.
file(COPY "${RANDOM123_INCLUDE_DIR}/Random123" DESTINATION "${WORK_DIR}/elsewhere/include")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer" -B "${WORK_DIR}/build"
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
                        -DRANDOM123_INCLUDE_DIR=${WORK_DIR}/elsewhere/include
                        -DEXPECTED_RANDOM123=${WORK_DIR}/elsewhere/include
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed (${rc})")
endif()
execute_process(COMMAND "${WORK_DIR}/build/consumer" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the consumer failed (${rc})")
endif()
