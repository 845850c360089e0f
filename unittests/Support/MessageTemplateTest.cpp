//===- MessageTemplateTest.cpp - opal.check's message templates -----------===//

#include "opal/Support/MessageTemplate.h"

#include <gtest/gtest.h>

using namespace opal;

TEST(MessageTemplate, FillsPlaceholdersByPosition) {
  EXPECT_EQ(fillMessage("Given normalized_shape=[{0}], expected input with shape [*, {0}], but "
                        "got input of size[{1}]",
                        {"2", "3, 3"}),
            "Given normalized_shape=[2], expected input with shape [*, 2], but got input of "
            "size[3, 3]");
  EXPECT_EQ(fillMessage("{{literal}} {1}{0}", {"a", "b"}), "{literal} ba");
  // A value the message has no text for shows as "?".
  EXPECT_EQ(fillMessage("{0} and {1}", {"x"}), "x and ?");
  // A damaged template is returned as it is.
  EXPECT_EQ(fillMessage("bad {x}", {"1"}), "bad {x}");
}

TEST(MessageTemplate, ProblemsNameWhereAndWhat) {
  EXPECT_EQ(messageTemplateProblem("no placeholders", 0), "");
  EXPECT_EQ(messageTemplateProblem("{0} {1}", 2), "");
  EXPECT_EQ(messageTemplateProblem("{{ and }}", 0), "");
  EXPECT_EQ(messageTemplateProblem("{2}", 2), "a placeholder {2} but 2 values");
  EXPECT_EQ(messageTemplateProblem("{0}", 0), "a placeholder {0} but 0 values");
  EXPECT_EQ(messageTemplateProblem("a } b", 0),
            "an unmatched '}' at 2 (write '}}' for a brace)");
  EXPECT_EQ(messageTemplateProblem("a {", 1),
            "a '{' at 2 that does not start a placeholder {N} or {N:dtype} (write '{{' for a "
            "brace)");
  EXPECT_EQ(messageTemplateProblem("{1234}", 5000),
            "a '{' at 0 that does not start a placeholder {N} or {N:dtype} (write '{{' for a "
            "brace)");
  EXPECT_EQ(messageTemplateProblem("{0:dtype}", 1), "");
  EXPECT_EQ(messageTemplateProblem("{0:size}", 1),
            "a '{' at 0 that does not start a placeholder {N} or {N:dtype} (write '{{' for a "
            "brace)");
}

TEST(MessageTemplate, DtypePlaceholdersNameTheDtypeAsC10Does) {
  EXPECT_EQ(fillMessage("\"gelu\" not implemented for '{0:dtype}'", {"4"}),
            "\"gelu\" not implemented for 'Long'");
  EXPECT_EQ(fillMessage("{0:dtype} and {1:dtype}", {"6", "11"}), "Float and Bool");
  EXPECT_EQ(fillMessage("Input type ({0:ctype}) and bias type ({1:ctype})", {"6", "4"}),
            "Input type (float) and bias type (long int)");
  // A value that is no dtype code is written as it is.
  EXPECT_EQ(fillMessage("{0:dtype}", {"99"}), "99");
  EXPECT_EQ(fillMessage("{0:dtype}", {"2, 3"}), "2, 3");
}
