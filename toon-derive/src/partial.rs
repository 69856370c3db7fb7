//! `#[toon(partial)]`: the struct's partial value (`{Type}Partial`), its
//! events (`{Type}Event`), and the `Streamed` impl that fills them from the
//! stream's events through `toon_core::__private::partial`.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::Type;
use toon_derive_internals::ast::{Container, Field};
use toon_derive_internals::attr::PartialAttr;
use toon_derive_internals::case::variant_of;
use toon_derive_internals::check::type_args;
use toon_derive_internals::constraint::Constraints;
use toon_derive_internals::shape::constraints_expr;

/// How a field's events reach the partial value.
enum Fill<'a> {
    /// One line: its value, whole.
    Line,
    /// A list: element by element.
    List(&'a Type),
    /// A delimited field: its text as it arrives.
    Text,
}

pub fn expand(c: &Container<'_>, partial: &PartialAttr, fields: &[Field<'_>]) -> TokenStream {
    let krate = c.runtime_path();
    let p = quote!(__toon::__private::partial);
    let ident = &c.input.ident;
    let vis = &c.input.vis;
    let name = partial
        .name
        .clone()
        .unwrap_or_else(|| format_ident!("{}Partial", ident));
    let event = partial
        .event
        .clone()
        .unwrap_or_else(|| format_ident!("{}Event", ident));
    let def_generics = &c.input.generics;
    let def_where = &def_generics.where_clause;
    let generics = c.bounded_generics(&quote!(#krate::Toon));
    let (impl_g, ty_g, where_g) = generics.split_for_impl();
    // `Self` in a field's type is the struct, not the generated type.
    let this = quote!(#ident #ty_g);

    let live: Vec<Live<'_>> = fields
        .iter()
        .filter(|f| !f.attrs.skip)
        .map(|f| {
            let fill = if f.attrs.delimited.is_some() {
                Fill::Text
            } else {
                list_item(f.ty).map_or(Fill::Line, Fill::List)
            };
            let field_vis = field_vis(c, f.ident);
            Live {
                field: f,
                ty: replace_self(f.ty.to_token_stream(), &this),
                item: match fill {
                    Fill::List(item) => replace_self(item.to_token_stream(), &this),
                    _ => TokenStream::new(),
                },
                fill,
                variant: format_ident!("{}", variant_of(f.ident)),
                // An event is as visible as the enum: a field the struct
                // keeps from its users has none.
                event: shown_by(vis, field_vis),
                vis: field_vis,
            }
        })
        .collect();

    let slots = live.iter().map(|l| {
        let (id, ty, vis) = (l.field.ident, &l.ty, l.vis);
        let doc = format!(
            "[`{ident}::{id}`](struct@{ident}), once the stream has read it; `None` until then."
        );
        quote_spanned! {l.field.ty.span()=> #[doc = #doc] #vis #id: ::core::option::Option<#ty> }
    });
    let ids: Vec<&syn::Ident> = live.iter().map(|l| l.field.ident).collect();
    let id_names = ids.iter().map(|id| id.unraw().to_string());
    let with_events: Vec<&Live<'_>> = live.iter().filter(|l| l.event).collect();
    let variants = with_events.iter().map(|l| {
        let (id, ty, item, v) = (l.field.ident, &l.ty, &l.item, &l.variant);
        let (doc, payload) = match l.fill {
            Fill::Line => (format!("`{id}`, once its line is read."), quote!(#ty)),
            Fill::List(_) => (
                format!("An element of `{id}`, as its lines end."),
                quote!(#krate::stream::Item<#item>),
            ),
            Fill::Text => (
                format!("The text of `{id}` since its last event."),
                quote!(::std::string::String),
            ),
        };
        quote_spanned! {l.field.ty.span()=> #[doc = #doc] #v(#payload) }
    });
    let show_variants = with_events.iter().map(|l| {
        let v = &l.variant;
        let show = match l.fill {
            Fill::List(_) => quote!(#p::shown_item(__v)),
            _ => quote!(#p::shown(__v)),
        };
        let label = v.to_string();
        quote! { Self::#v(ref __v) => __f.debug_tuple(#label).field(&#show).finish(), }
    });
    // What a value must meet to be shown: its field's constraints, or each
    // element's for a list (the list's own length is judged whole, at `finish`).
    let check_of = |l: &Live<'_>, constraints: &Constraints| {
        check_tokens(&p, matches!(l.fill, Fill::Text), &l.field.wire, constraints)
    };
    let check = |l: &Live<'_>| match l.fill {
        Fill::List(_) => check_of(l, &l.field.inner),
        _ => check_of(l, &l.field.constraints),
    };
    let reads = with_events.iter().map(|l| {
        let (ty, item, wire, v) = (&l.ty, &l.item, &l.field.wire, &l.variant);
        let check = check(l);
        let read = match l.fill {
            Fill::Line => quote_spanned! {l.field.ty.span()=> #p::field::<#ty>(__e, #check) },
            Fill::List(_) => quote_spanned! {l.field.ty.span()=> #p::item::<#item>(__e, #check) },
            Fill::Text => quote!(#p::text(__e)),
        };
        quote! { #wire => #read.map(|__r| __r.map(#event::#v)), }
    });
    let applies = live.iter().map(|l| {
        let (id, wire) = (l.field.ident, &l.field.wire);
        let apply = match l.fill {
            Fill::Line => {
                let check = check(l);
                quote!(#p::set(&mut __p.#id, __e, #check))
            }
            Fill::List(_) => {
                let (each, whole) = (check(l), check_of(l, &l.field.constraints));
                quote!(#p::grow(&mut __p.#id, __e, #each, #whole))
            }
            Fill::Text => quote!(#p::extend(&mut __p.#id, __e)),
        };
        quote! { ::core::option::Option::Some(#wire) => #apply, }
    });
    // Delimited text stands when the lines before are withdrawn.
    let cleared = live
        .iter()
        .filter(|l| !matches!(l.fill, Fill::Text))
        .map(|l| l.field.ident);
    let held: Vec<&String> = live
        .iter()
        .filter(|l| l.field.attrs.stream_done.is_some())
        .map(|l| &l.field.wire)
        .collect();
    let held = (!held.is_empty()).then(|| {
        quote! {
            fn __held(__k: &str) -> bool {
                ::core::matches!(__k, #(#held)|*)
            }
        }
    });
    let name_str = name.to_string();
    let partial_doc = format!(
        "What a streamed [`{ident}`](struct@{ident}) reply has given so far: each field \
         `None` until the stream has read it. Generated by `#[toon(partial)]`; read it from \
         a `toon_core::stream::PartialStream<{ident}>`."
    );
    let event_doc = format!(
        "A value of a streamed [`{ident}`](struct@{ident}) reply, named by its field. \
         Generated by `#[toon(partial)]`; a `toon_core::stream::PartialStream<{ident}>` \
         yields them."
    );

    quote! {
        #[doc = #partial_doc]
        #[allow(clippy::option_option)]
        #vis struct #name #def_generics #def_where {
            #(#slots,)*
        }

        #[doc = #event_doc]
        #[allow(clippy::large_enum_variant, clippy::enum_variant_names)]
        #vis enum #event #def_generics #def_where {
            #(#variants,)*
        }

        const _: () = {
            use #krate as __toon;

            #[automatically_derived]
            impl #impl_g ::core::default::Default for #name #ty_g #where_g {
                fn default() -> Self {
                    Self { #(#ids: ::core::option::Option::None,)* }
                }
            }

            #[automatically_derived]
            impl #impl_g ::core::fmt::Debug for #name #ty_g #where_g {
                fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    __f.debug_struct(#name_str)
                        #(.field(#id_names, &#p::shown_slot(&self.#ids)))*
                        .finish()
                }
            }

            #[automatically_derived]
            impl #impl_g ::core::fmt::Debug for #event #ty_g #where_g {
                fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    match *self { #(#show_variants)* }
                }
            }

            #[automatically_derived]
            impl #impl_g __toon::stream::Streamed for #ident #ty_g #where_g {
                type Partial = #name #ty_g;
                type Event = #event #ty_g;

                fn __event(
                    __e: &__toon::stream::Event,
                ) -> ::core::option::Option<::core::result::Result<Self::Event, __toon::ParseError>> {
                    match #p::key(__e)? {
                        #(#reads)*
                        _ => ::core::option::Option::None,
                    }
                }

                fn __apply(__p: &mut Self::Partial, __e: &__toon::stream::Event) {
                    match #p::key(__e) {
                        ::core::option::Option::None => {
                            #(__p.#cleared = ::core::option::Option::None;)*
                        }
                        #(#applies)*
                        _ => {}
                    }
                }

                #held
            }
        };
    }
}

/// A field read into the partial value.
struct Live<'a> {
    field: &'a Field<'a>,
    /// Its type, and its list's element, `Self` spelt as the struct.
    ty: TokenStream,
    item: TokenStream,
    fill: Fill<'a>,
    variant: syn::Ident,
    /// Whether it has an event variant.
    event: bool,
    vis: Option<&'a syn::Visibility>,
}

/// Whether a field of visibility `field` may show in an enum of `outer`'s:
/// the struct's own fields in a private struct, a `pub` field, or one as
/// visible as the struct.
fn shown_by(outer: &syn::Visibility, field: Option<&syn::Visibility>) -> bool {
    let Some(field) = field else { return true };
    matches!(outer, syn::Visibility::Inherited)
        || matches!(field, syn::Visibility::Public(_))
        || outer.to_token_stream().to_string() == field.to_token_stream().to_string()
}

/// `tokens` with each `Self` replaced by `this`.
fn replace_self(tokens: TokenStream, this: &TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|tree| match tree {
            TokenTree::Ident(i) if i == "Self" => this.clone(),
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), replace_self(g.stream(), this));
                group.set_span(g.span());
                TokenTree::Group(group).into()
            }
            other => other.into(),
        })
        .collect()
}

/// The element of a list field (`Vec<T>`, through `Option` and `Box`), which
/// streams element by element.
fn list_item(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let args = type_args(last);
    match last.ident.to_string().as_str() {
        "Option" | "Box" => list_item(args.first()?),
        "Vec" => args.first().copied(),
        _ => None,
    }
}

/// The visibility the struct gives the field: its partial value's field has it too.
fn field_vis<'a>(c: &'a Container<'_>, id: &syn::Ident) -> Option<&'a syn::Visibility> {
    let syn::Data::Struct(s) = &c.input.data else {
        return None;
    };
    s.fields
        .iter()
        .find(|f| f.ident.as_ref() == Some(id))
        .map(|f| &f.vis)
}

/// What a value must meet to be shown: `constraints`, checked as the whole
/// reply checks them, or nothing (none given, or delimited text).
fn check_tokens(p: &TokenStream, text: bool, wire: &str, constraints: &Constraints) -> TokenStream {
    if constraints.is_empty() || text {
        quote!(#p::unchecked)
    } else {
        let c = constraints_expr(constraints);
        quote!(|__v| #p::checked(__v, #wire, &#c))
    }
}
