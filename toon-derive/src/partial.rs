//! `#[toon(partial)]`: the struct's partial value (`{Type}Partial`), its
//! events (`{Type}Event`), and the `Streamed` impl that fills them from the
//! stream's events through `toon_core::__private::partial`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Type;
use toon_derive_internals::ast::{Container, Field};
use toon_derive_internals::attr::PartialAttr;
use toon_derive_internals::case::variant_of;
use toon_derive_internals::check::type_args;

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
    let p = quote!(#krate::__private::partial);
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

    let live: Vec<(&Field<'_>, Fill<'_>, syn::Ident)> = fields
        .iter()
        .filter(|f| !f.attrs.skip)
        .map(|f| {
            let fill = if f.attrs.delimited.is_some() {
                Fill::Text
            } else {
                list_item(f.ty).map_or(Fill::Line, Fill::List)
            };
            (f, fill, format_ident!("{}", variant_of(f.ident)))
        })
        .collect();

    let slots = live.iter().map(|(f, _, _)| {
        let (id, ty) = (f.ident, f.ty);
        let vis = field_vis(c, id);
        let doc = format!(
            "[`{ident}::{id}`](struct@{ident}), once the stream has read it; `None` until then."
        );
        quote_spanned! {ty.span()=> #[doc = #doc] #vis #id: ::core::option::Option<#ty> }
    });
    let ids: Vec<&syn::Ident> = live.iter().map(|(f, _, _)| f.ident).collect();
    let id_names = ids.iter().map(|id| id.to_string());
    let variants = live.iter().map(|(f, fill, v)| {
        let (id, ty) = (f.ident, f.ty);
        let (doc, payload) = match fill {
            Fill::Line => (format!("`{id}`, once its line is read."), quote!(#ty)),
            Fill::List(item) => (
                format!("An element of `{id}`, as its lines end."),
                quote!(#krate::stream::Item<#item>),
            ),
            Fill::Text => (
                format!("The text of `{id}` since its last event."),
                quote!(::std::string::String),
            ),
        };
        quote_spanned! {ty.span()=> #[doc = #doc] #v(#payload) }
    });
    let show_variants = live.iter().map(|(_, fill, v)| {
        let show = match fill {
            Fill::List(_) => quote!(#p::shown_item(__v)),
            _ => quote!(#p::shown(__v)),
        };
        let label = v.to_string();
        quote! { Self::#v(ref __v) => __f.debug_tuple(#label).field(&#show).finish(), }
    });
    let keys = |f: &Field<'_>| {
        let wire = &f.wire;
        let aliases = &f.attrs.aliases;
        quote!(#wire #(| #aliases)*)
    };
    let reads = live.iter().map(|(f, fill, v)| {
        let (ty, keys) = (f.ty, keys(f));
        let read = match fill {
            Fill::Line => quote_spanned! {ty.span()=> #p::field::<#ty>(__e) },
            Fill::List(item) => quote_spanned! {ty.span()=> #p::item::<#item>(__e) },
            Fill::Text => quote!(#p::text(__e)),
        };
        quote! { #keys => #read.map(|__r| __r.map(#event::#v)), }
    });
    let applies = live.iter().map(|(f, fill, _)| {
        let (id, keys) = (f.ident, keys(f));
        let apply = match fill {
            Fill::Line => quote!(#p::set),
            Fill::List(_) => quote!(#p::grow),
            Fill::Text => quote!(#p::extend),
        };
        quote! { ::core::option::Option::Some(#keys) => #apply(&mut __p.#id, __e), }
    });
    // Delimited text stands when the lines before are withdrawn.
    let cleared = live
        .iter()
        .filter(|(_, fill, _)| !matches!(fill, Fill::Text))
        .map(|(f, _, _)| f.ident);
    let held: Vec<TokenStream> = live
        .iter()
        .filter(|(f, _, _)| f.attrs.stream_done.is_some())
        .map(|(f, _, _)| keys(f))
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
        #vis enum #event #def_generics #def_where {
            #(#variants,)*
        }

        const _: () = {
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
            impl #impl_g #krate::stream::Streamed for #ident #ty_g #where_g {
                type Partial = #name #ty_g;
                type Event = #event #ty_g;

                fn __event(
                    __e: &#krate::stream::Event,
                ) -> ::core::option::Option<::core::result::Result<Self::Event, #krate::ParseError>> {
                    match #p::key(__e)? {
                        #(#reads)*
                        _ => ::core::option::Option::None,
                    }
                }

                fn __apply(__p: &mut Self::Partial, __e: &#krate::stream::Event) {
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
