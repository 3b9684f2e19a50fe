"""Launch profiles as people change them: what a confirmation covers (launch_confirm), flag
values compared as numbers (flag_values), a copy with flags set or unset (profile_copy), and
the fix a host's settings suggest (host_fix)."""
