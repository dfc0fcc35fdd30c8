# cmake -DIN=file -DOUT=header.h -DNAME=symbol -P embed.cmake: the file as a C string
# (static const char NAME[]) for the HTML report, which inlines it into its page.
file(READ "${IN}" text)
# Inside the page's <style>/<script> element this would end the element early.
string(TOLOWER "${text}" lower)
string(FIND "${lower}" "</script" at_script)
string(FIND "${lower}" "</style" at_style)
if(NOT at_script EQUAL -1 OR NOT at_style EQUAL -1)
  message(FATAL_ERROR "${IN} contains </script or </style, which would end its element in the page")
endif()
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n" hex "${hex}")
file(WRITE "${OUT}.tmp" "/* Generated from ${IN} by embed.cmake. */\nstatic const char ${NAME}[] = {\n${hex}0x00 };\n")
file(RENAME "${OUT}.tmp" "${OUT}")
