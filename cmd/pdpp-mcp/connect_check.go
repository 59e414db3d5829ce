package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"golang.org/x/oauth2"

	"github.com/pdpp/pdpp-mcp/internal/bearer"
)

// checkIssuedToken reads /v1/schema with the new token, as `pdpp connect`
// does before it stores anything: a token the RS refuses (a grant-package
// token from a sign-in that selected no data) is explained, not cached.
func checkIssuedToken(ctx context.Context, client *http.Client, f connectFlags, tok *oauth2.Token) error {
	if !bearer.WellFormed(tok.AccessToken) || (tok.TokenType != "" && !strings.EqualFold(tok.TokenType, "Bearer")) {
		return errors.New("the authorization server issued no usable Bearer access token")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.providerURL+"/v1/schema", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("checking the new token on %s/v1/schema: %v", f.providerURL, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if res.StatusCode == http.StatusOK {
		return nil
	}
	var env struct {
		Error struct {
			Code, Message string
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &env)
	msg := fmt.Sprintf("the RS refused the new token on /v1/schema: HTTP %d %s %s", res.StatusCode, env.Error.Code, env.Error.Message)
	if _, pkg := tok.Extra("grant_package_id").(string); pkg || !f.selection.Configured() {
		msg += "; the sign-in selected no data, so the authorization server issued a token the RS does not serve: run connect again with --sign-in-details FILE or --connector ID"
	}
	return errors.New(msg + "; nothing was written")
}
