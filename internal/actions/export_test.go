package actions

// QuoteSummaryForTest is quoteSummary, for the tests of package actions_test.
var QuoteSummaryForTest = quoteSummary
