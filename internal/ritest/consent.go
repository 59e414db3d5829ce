package ritest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
)

// Approve is the owner's browser on an authorization URL a client printed
// (`pdpp-mcp connect --no-browser`): it follows the URL to the RI's
// consent, reviews and approves it (the loopback development posture asks
// no owner login), and follows the approval's redirect to the client's
// callback, which must answer 200. The consent endpoints are taken on the
// authorization URL's origin: the RI names its AS by the host it was asked
// on (localhost or 127.0.0.1).
func (r *RI) Approve(ctx context.Context, authorizeURL string) error {
	c := newHTTPC()
	au, err := url.Parse(authorizeURL)
	if err != nil {
		return fmt.Errorf("authorization URL: %w", err)
	}
	origin := au.Scheme + "://" + au.Host
	rep, err := c.do(ctx, request{method: "GET", url: authorizeURL}, 302, 303)
	if err != nil {
		return fmt.Errorf("authorize: %w", err)
	}
	loc, err := au.Parse(rep.header.Get("Location"))
	if err != nil || loc.Query().Get("request_uri") == "" {
		return fmt.Errorf("authorize did not send the owner to consent: Location %s", redact(rep.header.Get("Location")))
	}
	requestURI := loc.Query().Get("request_uri")
	var review struct {
		Revision string `json:"approval_review_revision"`
		Review   struct {
			Revision string `json:"approval_review_revision"`
		} `json:"approval_review"`
	}
	if err := c.doJSON(ctx, request{method: "POST", url: origin + "/consent/review", accept: "application/json",
		form: url.Values{"request_uri": {requestURI}}}, &review, 200); err != nil {
		return fmt.Errorf("consent review: %w", err)
	}
	rev := review.Revision
	if rev == "" {
		rev = review.Review.Revision
	}
	if rev == "" {
		return errors.New("consent review gave no approval_review_revision")
	}
	rep, err = c.do(ctx, request{method: "POST", url: origin + "/consent/approve",
		form: url.Values{"request_uri": {requestURI}, "approval_review_revision": {rev}}}, 302, 303)
	if err != nil {
		return fmt.Errorf("consent approve: %w", err)
	}
	cb, err := au.Parse(rep.header.Get("Location"))
	if err != nil {
		return fmt.Errorf("consent approve Location: %w", err)
	}
	if _, err := c.do(ctx, request{method: "GET", url: cb.String()}, 200); err != nil {
		return fmt.Errorf("the client's callback: %w", err)
	}
	return nil
}
