"""The denial-appeal workflow: a claim denial notice and the policy in, a validated analysis
with an evidence pack out."""
